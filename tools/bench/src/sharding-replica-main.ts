/**
 * Child process: one operator replica for scenario 9 (sharding). It watches the ConfigMaps of the
 * `bench` namespace, either all of them (`none`, as every replica of an unsharded operator would), or
 * the slots its ring gives it (`ring`: `runOperator({ sharding })` with a `ShardedInformer`). Each
 * event runs a reconciler that waits `workMs` (I/O-bound work). The `stats` command answers what it has
 * received and done since the last `reset`: events delivered to its handlers, events it decoded and
 * dropped as another shard's (client-side filtering), reconciles and when the last one ended.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, ConfigMapKind, HttpTransport, LeaseKind } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { InformerController, InformerMetrics, KubernetesBasedInformer, Operator, ShardedInformer, SimpleReconciler, noopLogger, runOperator } from '@kubeloop/operator';
import type { Informer } from '@kubeloop/operator';
import { BENCH_NAMESPACE } from './bench-objects.js';
import { onCommand, onStop, runChildMain, sendReady } from './child-runtime.js';

/** The ring of a replica (ShardRing's options). */
export interface BenchRing {
  name: string;
  slots: number;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** Input of the replica child. */
export interface ShardingReplicaInput {
  url: string;
  identity: string;
  /** How long each reconcile waits, in milliseconds. */
  workMs: number;
  /** The ring to join; undefined: no sharding (every object). */
  ring: BenchRing | undefined;
}

/** What `stats` answers. */
export interface ShardingReplicaStats {
  /** Events delivered to the handlers (this replica's share). */
  delivered: number;
  /** Events decoded and dropped as another shard's (client-side filtering). */
  filtered: number;
  reconciles: number;
  /** Date.now() when the last reconcile ended (0: none since the reset). */
  lastReconcileAt: number;
}

/** A command of the parent. */
export type ShardingReplicaCommand = 'stats' | 'reset';

runChildMain<ShardingReplicaInput>(async (input) => {
  const transport = new HttpTransport({ server: input.url });
  const configMaps = new Client(ConfigMapKind, transport);
  const metrics = new InformerMetrics();
  const informer: Informer<ConfigMap> =
    input.ring === undefined
      ? new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, configMaps, BENCH_NAMESPACE, { logger: noopLogger, metrics })
      : new ShardedInformer<ConfigMap>(ConfigMapKind, configMaps, BENCH_NAMESPACE, { logger: noopLogger, metrics });
  let stats: ShardingReplicaStats = { delivered: 0, filtered: 0, reconciles: 0, lastReconcileAt: 0 };
  let filteredAtReset = 0;
  const controller = new InformerController({ logger: noopLogger });
  controller.addInformer(informer, 'configmaps');
  // Counted on the informer itself: every event it keeps, before the controller coalesces them.
  const count = async (): Promise<void> => {
    stats.delivered++;
  };
  informer.addEventHandler({ add: count, update: count, delete: count });
  controller.addReconciler(
    new SimpleReconciler<ConfigMap>({
      reconcileFunc: async (ctx) => {
        await sleep(input.workMs, undefined, { signal: ctx.signal });
        stats.reconciles++;
        stats.lastReconcileAt = Date.now();
        return {};
      },
    }),
    'configmaps',
  );
  const operator = new Operator();
  operator.addController(controller);
  const filtered = async (): Promise<number> => (await metrics.shardFilteredEventsTotal.get()).values.reduce((sum, v) => sum + v.value, 0);

  const stop = new AbortController();
  const ring = input.ring;
  const running = runOperator({
    operator,
    signal: stop.signal,
    logger: noopLogger,
    ...(ring === undefined ? {} : { sharding: { ...ring, namespace: BENCH_NAMESPACE, identity: input.identity, client: new Client(LeaseKind, transport), handOverTimeoutMs: 1000 } }),
  });
  onStop(async () => {
    stop.abort();
    await running;
    transport.close();
  });
  onCommand(async (command) => {
    if ((command as ShardingReplicaCommand) === 'reset') {
      filteredAtReset = await filtered();
      stats = { delivered: 0, filtered: 0, reconciles: 0, lastReconcileAt: 0 };
      return undefined;
    }
    return { ...stats, filtered: (await filtered()) - filteredAtReset } satisfies ShardingReplicaStats;
  });
  await sendReady(undefined);
  return undefined;
});
