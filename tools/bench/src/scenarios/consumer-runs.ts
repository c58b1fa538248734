/** Runs consumer children against a stream server, interleaved round by round, warm-ups discarded. */
import { BenchChild } from '../child-process.js';
import type { ConsumerName } from '../consumers/consumer.js';
import type { ConsumerInput, ConsumerResult } from '../consumers/consumer-main.js';
import { rotatedOrder } from '../stats.js';

const CONSUMER_MAIN = new URL('../consumers/consumer-main.js', import.meta.url);

/** Human names of the consumers, as the tables print them. */
export const CONSUMER_LABELS: Record<ConsumerName, string> = {
  raw: 'raw baseline (http + split + JSON.parse + Map)',
  kubeloop: 'kubeloop informer -> controller',
  'kubeloop-strip': 'kubeloop, managedFields stripped',
  'kubeloop-watch': '(stage) kubeloop Client.watch alone',
  'kubeloop-informer': '(stage) kubeloop informer, no controller',
  'client-node': '@kubernetes/client-node 1.4 makeInformer',
  'dot-i': '@dot-i/k8s-operator 1.3.9',
};

/** Short names for charts. */
export const CONSUMER_SHORT: Record<ConsumerName, string> = {
  raw: 'raw baseline',
  kubeloop: 'kubeloop',
  'kubeloop-strip': 'kubeloop (stripped)',
  'kubeloop-watch': 'kubeloop Client.watch',
  'kubeloop-informer': 'kubeloop informer only',
  'client-node': 'client-node 1.4',
  'dot-i': 'dot-i/k8s-operator',
};

/** Runs one consumer child to completion. */
export async function runConsumer(input: ConsumerInput, timeoutMs: number, execArgv?: readonly string[]): Promise<ConsumerResult> {
  const child = BenchChild.start(CONSUMER_MAIN, input, { timeoutMs, label: `consumer ${input.consumer} (${input.mode})`, execArgv });
  try {
    return await child.result<ConsumerResult>();
  } finally {
    await child.stop();
  }
}

/** Options of {@link runConsumerUntilReady}. */
export interface ReadyRunOptions {
  timeoutMs: number;
  /** Called once the child reports `ready`; the result is awaited after it. */
  whenReady: () => Promise<unknown>;
  /** Extra node flags for the child. Default: none. */
  execArgv?: readonly string[] | undefined;
}

/** Runs one consumer child that reports `ready` first (scale mode), does `whenReady`, and returns the child's result. */
export async function runConsumerUntilReady(input: ConsumerInput, options: ReadyRunOptions): Promise<ConsumerResult> {
  const child = BenchChild.start(CONSUMER_MAIN, input, { timeoutMs: options.timeoutMs, label: `consumer ${input.consumer} (${input.mode})`, execArgv: options.execArgv });
  try {
    await child.ready();
    await options.whenReady();
    return await child.result<ConsumerResult>();
  } finally {
    await child.stop();
  }
}

/** Options of {@link runRounds}. */
export interface RoundsOptions {
  consumers: readonly ConsumerName[];
  warmups: number;
  runs: number;
  /** Builds the input of one consumer's run. */
  input: (consumer: ConsumerName) => ConsumerInput;
  timeoutMs: number;
  log: (line: string) => void;
  /** Extra node flags for the consumer children (e.g. `--cpu-prof`). Default: none. */
  execArgv?: readonly string[] | undefined;
}

/**
 * Runs `warmups + runs` rounds; each round runs every consumer once, in a rotated order (A B C, B C A,
 * C A B, ...) so that no consumer always runs first or last. Returns the measured (non-warm-up) results
 * per consumer, in round order: index i of every consumer's list comes from the same round.
 */
export async function runRounds(options: RoundsOptions): Promise<Map<ConsumerName, ConsumerResult[]>> {
  const results = new Map<ConsumerName, ConsumerResult[]>(options.consumers.map((c) => [c, []]));
  const total = options.warmups + options.runs;
  for (let round = 0; round < total; round++) {
    const warm = round < options.warmups;
    for (const consumer of rotatedOrder(options.consumers, round)) {
      const result = await runConsumer(options.input(consumer), options.timeoutMs, options.execArgv);
      options.log(
        `  ${warm ? 'warm-up' : `run ${round - options.warmups + 1}/${options.runs}`} ${consumer}: ` +
          (result.mode === 'ingest'
            ? `${result.watchSeconds.toFixed(2)} s, ${result.watchCpuSeconds.toFixed(2)} CPU-s`
            : `${result.cachedObjects} objects, list ${result.listSeconds.toFixed(2)} s, ${result.listCpuSeconds.toFixed(2)} CPU-s, heap +${((result.heapAfterGcBytes - result.emptyHeapBytes) / 1048576).toFixed(1)} MiB`),
      );
      if (!warm) results.get(consumer)!.push(result);
    }
  }
  return results;
}
