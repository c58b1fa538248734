import type { Metric } from 'prom-client';
import { realClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { whileHoldingProcessOpen } from '../keep-alive.js';
import { LeaderElector } from './leader-elector.js';
import type { LeaderElectionOutcome, LeaderElectorOptions } from './leader-elector.js';
import { consoleLogger } from '../observability/logger.js';
import type { Logger } from '../observability/logger.js';
import type { OperatorServer } from './operator-server.js';
import type { OperatorStatus } from '../status/controller-status.js';
import { ShardRing } from '../sharding/shard-ring.js';
import type { ShardParticipant, ShardRingOptions } from '../sharding/shard-ring.js';
import { InvalidArgumentError } from '../errors.js';

/** Options of {@link shutdownSignal}. */
export interface ShutdownSignalOptions {
  /** Signals that start a graceful shutdown. Default: `['SIGTERM', 'SIGINT']`. */
  signals?: readonly NodeJS.Signals[] | undefined;
  /** Exit code when a second signal forces the exit. Default: 130 (the shell's code for an interrupted process). */
  forceExitCode?: number | undefined;
  /** Called for every signal received, with how many were received so far. Default: logs a line to stderr. */
  onSignal?: ((signal: NodeJS.Signals, count: number) => void) | undefined;
  /** How to exit on the second signal. Default: `process.exit`. */
  exit?: ((code: number) => void) | undefined;
}

/** A signal that aborts on SIGTERM/SIGINT; `dispose()` removes the process listeners. */
export interface ShutdownHandle {
  readonly signal: AbortSignal;
  dispose(): void;
}

/**
 * Turns SIGTERM/SIGINT into an AbortSignal: the first signal aborts it (a graceful shutdown
 * starts), a second one exits at once. Installing the listeners also stops Node from exiting on
 * those signals by default, so in-flight work can finish.
 */
export function shutdownSignal(options: ShutdownSignalOptions = {}): ShutdownHandle {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const forceExitCode = options.forceExitCode ?? 130;
  const onSignal =
    options.onSignal ??
    ((sig: NodeJS.Signals, count: number) =>
      consoleLogger.info(count === 1 ? `received ${sig}: shutting down gracefully (send it again to force)` : `received ${sig} again: exiting now`));
  const controller = new AbortController();
  let count = 0;
  const listener = (sig: NodeJS.Signals): void => {
    count++;
    onSignal(sig, count);
    if (count === 1) controller.abort(new Error(`received ${sig}`));
    else exit(forceExitCode);
  };
  for (const sig of signals) process.on(sig, listener);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const sig of signals) process.off(sig, listener);
    },
  };
}

/** What {@link runOperator} runs: an `Operator` (or anything with the same `run`). */
export interface RunnableOperator {
  /** Runs until the signal aborts and in-flight work has finished; rejects on the first fatal error. */
  run(signal: AbortSignal): Promise<void>;
  /** Metrics to serve at /metrics. */
  prometheusCollectors?(): Metric[];
  /** Starts the informers ahead of `run()` (warm replica); called when `leaderElection.warmup` is set. */
  warmUp?(signal: AbortSignal): Promise<void>;
  /** True once every controller's caches have synced and its workers run; the default of `hasSynced`. */
  hasSynced?(): boolean;
  /** True once the informers it runs have synced, while warming up too; a warm follower's readiness. */
  cachesSynced?(): boolean;
  /** What the server's `/status` page shows (an `Operator` has it). */
  status?(): OperatorStatus;
  /** Joins a shard ring (an `Operator` can); needed for the `sharding` option. */
  shardWith?(ring: ShardRing, options: { handOverTimeoutMs?: number | undefined }): ShardParticipant;
}

/** Sharding of {@link runOperator}: the ring's options (the operator is its participant) and the hand-over timeout. */
export interface RunOperatorSharding extends Omit<ShardRingOptions, 'logger' | 'clock'> {
  /** How long a slot given up waits for the handler calls on its objects before it aborts their signals. Default: 10000. */
  handOverTimeoutMs?: number | undefined;
}

/** Leader election of {@link runOperator}: the elector's options, without `onStartedLeading` (runOperator's), plus warm-up. */
export interface RunOperatorLeaderElection extends Omit<LeaderElectorOptions, 'onStartedLeading'> {
  /**
   * Warm replicas (controller-runtime's `EnableWarmup`): while not the leader, the operator's
   * informers already run and fill their caches (`operator.warmUp`), so that a failover starts from
   * full caches without a relist; workers start only once leading. Costs a follower the watches and
   * the memory of the caches. Default: false (a follower runs nothing).
   */
  warmup?: boolean | undefined;
  /**
   * With `warmup`, a follower's readiness (`informers-synced`) fails until its caches have synced
   * (`operator.cachesSynced()`), so that a rolling update waits for the new replica to be warm before
   * it stops the old leader. Set it to false when this process serves something its own caches need
   * (a conversion webhook behind a Service that routes only to ready pods), which would otherwise
   * wait on itself; controller-runtime leaves this check to the user for that reason. Without
   * `warmup`, or with an operator that has no `cachesSynced`, a follower is ready once the lease was
   * read. Default: true.
   */
  warmupGatesReadiness?: boolean | undefined;
}

/** Options of {@link runOperator}. */
export interface RunOperatorOptions {
  /** The operator to run (only while leading, with leader election). */
  operator: RunnableOperator;
  /**
   * Leader election: the operator runs only while this process holds the lease, and the lease is
   * released after the operator stopped. `onStartedLeading` is runOperator's; the other callbacks
   * are called as usual (`onError` defaults to a warning through `logger`). Default: none (the operator always runs).
   */
  leaderElection?: RunOperatorLeaderElection | undefined;
  /**
   * Sharding: the operator runs as one replica of a `ShardRing` (see `ShardRing` and the README's
   * "Scaling out"): its `ShardedInformer`s follow the slots the ring gives this replica, and each
   * object is handled by one replica at a time. For singleton controllers, run a second operator with
   * `leaderElection` in another `runOperator` call; one call takes one of the two. Default: none.
   */
  sharding?: RunOperatorSharding | undefined;
  /**
   * Serves /metrics, /healthz, /readyz, and /status from the operator's `status()` when it has one. Started here if it is not yet listening, and then stopped
   * at the end. Checks added: liveness `operator` (the operator has not failed); readiness
   * `leader-election` (the lease has been read) and `informers-synced` (from `hasSynced` while leading;
   * while following with `warmup`, from `cachesSynced`, see `warmupGatesReadiness`). Default: none.
   */
  server?: OperatorServer | undefined;
  /** Readiness of the operator while it runs, e.g. `() => informers.every((i) => i.hasSynced())`. Default: the operator's `hasSynced()` when it has one (an `Operator` does: every controller's sync gate is open), else none. */
  hasSynced?: (() => boolean) | undefined;
  /** Aborting it starts a graceful shutdown. Default: {@link shutdownSignal}() (SIGTERM/SIGINT). */
  signal?: AbortSignal | undefined;
  /**
   * How long a graceful shutdown may take in all (in-flight reconciles, lease release) before
   * `runOperator` gives up waiting and resolves with exit code 1. Keep it below the pod's
   * `terminationGracePeriodSeconds`. Default: 40000 (the controllers' default shutdown timeout of 30 s, plus time to release the lease).
   */
  shutdownDeadlineMs?: number | undefined;
  /** Where the few runtime lines go (leadership, shutdown, failures). Default: `consoleLogger`. */
  logger?: Logger | undefined;
  /** Time source for the shutdown deadline. Default: `realClock`. */
  clock?: Clock | undefined;
}

/** How {@link runOperator} ended. */
export interface RunOperatorResult {
  /** 0 after a clean shutdown; 1 after an error, lost leadership or a missed shutdown deadline. */
  exitCode: number;
  /** The error that ended the run, if any. */
  error?: unknown;
  /** The leader election outcome, with leader election. */
  leaderElection?: LeaderElectionOutcome | undefined;
}

/**
 * Runs an operator the way production wants it: optionally only while leading, with metrics and
 * health served, until SIGTERM/SIGINT (or `signal`). Then it stops taking new work, lets in-flight
 * reconciles finish (the controllers' own shutdown timeout bounds them), releases the lease, stops
 * the server and resolves with an exit code.
 *
 * ```ts
 * const { exitCode } = await runOperator({
 *   operator,
 *   leaderElection: { client: createClient(LeaseKind, kubeConfig), lease: { namespace: 'default', name: 'my-operator' }, identity: hostname() },
 *   server: new OperatorServer(),
 * });
 * process.exit(exitCode);
 * ```
 *
 * Lost leadership resolves with exit code 1, like client-go's convention of exiting the process:
 * the platform restarts it and it campaigns again with fresh state.
 */
export function runOperator(options: RunOperatorOptions): Promise<RunOperatorResult> {
  // Held from the start: the server start and the elector's first request come before any other hold.
  return whileHoldingProcessOpen(() => runOperatorHeld(options));
}

async function runOperatorHeld(options: RunOperatorOptions): Promise<RunOperatorResult> {
  const logger = options.logger ?? consoleLogger;
  const clock = options.clock ?? realClock;
  const deadlineMs = options.shutdownDeadlineMs ?? 40_000;
  const handle = options.signal ? undefined : shutdownSignal();
  const signal = options.signal ?? handle!.signal;
  const { operator, server } = options;

  let failed: { error: unknown } | undefined;
  const runOnce = async (runSignal: AbortSignal): Promise<void> => {
    try {
      await operator.run(runSignal);
    } catch (error) {
      failed = { error };
      throw error;
    }
  };
  const warmup = options.leaderElection?.warmup ?? false;
  const elector = options.leaderElection
    ? new LeaderElector({
        onError: (error: unknown) => logger.warn('leader election request failed; retrying', { error }),
        ...withoutWarmup(options.leaderElection),
        onStartedLeading: (leadingSignal) => {
          logger.info('became the leader: starting controllers', { identity: options.leaderElection?.identity });
          return runOnce(leadingSignal);
        },
      })
    : undefined;
  if (options.sharding && options.leaderElection) throw new InvalidArgumentError('runOperator takes sharding or leaderElection, not both: run the singleton controllers in a second runOperator call');
  const ring = options.sharding ? new ShardRing({ ...options.sharding, logger, clock }) : undefined;
  if (ring) {
    if (typeof operator.shardWith !== 'function') throw new InvalidArgumentError('sharding needs an operator that can join a shard ring (an Operator)');
    ring.setParticipant(operator.shardWith(ring, { handOverTimeoutMs: options.sharding?.handOverTimeoutMs }));
  }
  const startedServer = server !== undefined && !server.isListening();
  if (startedServer) await server.start();
  if (server) {
    server.registerCollectors(operator.prometheusCollectors?.() ?? []);
    if (typeof operator.status === 'function') server.setStatusSource(() => operator.status?.() ?? { controllers: [] });
    if (elector) server.registerCollectors(elector.prometheusCollectors());
    if (ring) server.registerCollectors(ring.prometheusCollectors());
    addCheckOnce(server, 'health', 'operator', () => {
      if (failed) throw new Error(`operator failed: ${describe(failed.error)}`);
    });
    if (elector) {
      addCheckOnce(server, 'ready', 'leader-election', () => {
        if (!elector.leaderKnown()) throw new Error(`leader not known yet${elector.lastError() ? `: ${describe(elector.lastError())}` : ''}`);
      });
    }
    const hasSynced = options.hasSynced ?? (typeof operator.hasSynced === 'function' ? () => operator.hasSynced?.() === true : undefined);
    const warmCachesSynced =
      warmup && (options.leaderElection?.warmupGatesReadiness ?? true) && typeof operator.warmUp === 'function' && typeof operator.cachesSynced === 'function'
        ? () => operator.cachesSynced?.() === true
        : undefined;
    if (hasSynced || warmCachesSynced) {
      addCheckOnce(server, 'ready', 'informers-synced', () => {
        if (!elector || elector.isLeader()) {
          if (hasSynced && !hasSynced()) throw new Error('informers have not synced yet');
          return;
        }
        // A warm follower is ready to take over once its caches are full; a cold one runs no informers.
        if (warmCachesSynced && !warmCachesSynced()) throw new Error('warm-up: informer caches have not synced yet');
      });
    }
  }

  const work: Promise<RunOperatorResult> = (async () => {
    try {
      if (!elector) {
        await Promise.all([runOnce(signal), ring?.run(signal)]);
        return { exitCode: 0 };
      }
      // A warm-up failure is the operator's failure (liveness goes red, exit code 1); run() rejects with it once leading.
      let warmUpFailed: { error: unknown } | undefined;
      const warming =
        warmup && typeof operator.warmUp === 'function'
          ? operator.warmUp(signal).catch((error: unknown) => {
              warmUpFailed = { error };
              failed ??= warmUpFailed;
              logger.error('warm-up failed', { error });
            })
          : undefined;
      const outcome = await elector.run(signal);
      await warming;
      if (warmUpFailed !== undefined) return { exitCode: 1, error: warmUpFailed.error, leaderElection: outcome };
      if (outcome === 'lost') {
        logger.error('leader election lost: exiting so that a fresh process campaigns again', { identity: elector.getIdentity() });
        return { exitCode: 1, leaderElection: outcome };
      }
      return { exitCode: 0, leaderElection: outcome };
    } catch (error) {
      logger.error('operator failed', { error });
      return { exitCode: 1, error };
    }
  })();
  // Once shutdown starts, give it `deadlineMs` in all.
  let deadlineTimer: { cancel(): void } | undefined;
  const deadline = new Promise<RunOperatorResult>((resolve) => {
    const arm = (): void => {
      deadlineTimer = clock.setTimer(deadlineMs, () => {
        logger.error('graceful shutdown did not finish in time; giving up', { deadlineMs });
        resolve({ exitCode: 1, error: new Error('shutdown deadline exceeded') });
      });
    };
    if (signal.aborted) arm();
    else signal.addEventListener('abort', arm, { once: true });
  });

  try {
    return await Promise.race([work, deadline]);
  } finally {
    deadlineTimer?.cancel();
    handle?.dispose();
    if (startedServer) await server.stop();
  }
}

function addCheckOnce(server: OperatorServer, type: 'health' | 'ready', name: string, check: () => void): void {
  try {
    if (type === 'health') server.addHealthCheck(name, check);
    else server.addReadyCheck(name, check);
  } catch {
    // Already added by an earlier runOperator on the same server: keep the first.
  }
}

function withoutWarmup(config: RunOperatorLeaderElection): Omit<LeaderElectorOptions, 'onStartedLeading'> {
  const { warmup: _warmup, warmupGatesReadiness: _warmupGatesReadiness, ...electorOptions } = config;
  return electorOptions;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
