/**
 * One replica of a sharded operator, as users deploy it: its own process, `runOperator`, stopped by
 * SIGTERM, exit code from runOperator. It reconciles the ConfigMaps of one namespace through an
 * `OpinionatedReconciler` (finalizer `kubeloop.dev/shard-test`) around a reconciler whose every call
 * waits `workMs` (I/O-bound work, with `ctx.signal`) and then makes its side effect: the call's end
 * line in the record file (handler-call.ts), `wrote: true` only if its signal had not aborted by then.
 * Prints `synced` once its caches have synced. With `sharding`, it joins a ring of replicas
 * (`runOperator({ sharding })`, a `ShardedInformer`) and prints the ring's hand-over lines.
 *
 * `node sharded-operator-process.js '<ShardedOperatorOptions as JSON>'`, kubeconfig from KUBECONFIG.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigMapKind, LeaseKind, createClient, equalShardRange, loadKubeConfig } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { InformerController, KubernetesBasedInformer, Operator, ReconcileAction, ShardedInformer, consoleLogger, exponentialBackoffRetryPolicy, hasFinalizer, newOpinionatedReconciler, noopLogger, runOperator } from '@kubeloop/operator';
import type { HandlerContext, Informer, ReconcileRequest, ReconcileResult, Reconciler } from '@kubeloop/operator';
import { CallRecorder } from './handler-call.js';
import { versionOf } from './object-version.js';
import type { CallKind, CallOutcome } from './handler-call.js';

/** The finalizer whose delete path is the cleanup the invariants count. */
const SHARD_TEST_FINALIZER = 'kubeloop.dev/shard-test';

/** The options of one replica process. */
export interface ShardedOperatorOptions {
  /** Unique per process started. */
  identity: string;
  /** The NDJSON record file of this process. */
  record: string;
  /** The namespace of the ConfigMaps. */
  namespace: string;
  /** How long each call waits before its side effect, in milliseconds. */
  workMs: number;
  /** A fixed shard: replica `index` of `count` equal ranges of the uid hash space. Default: every object. */
  staticShard?: { index: number; count: number } | undefined;
  /** Join the ring of this name with these timings (ShardRing's options). Default: no ring. */
  sharding?: ShardedOperatorRing | undefined;
}

/** The ring a replica joins (its Leases live in the objects' namespace). */
export interface ShardedOperatorRing {
  name: string;
  slots: number;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  handOverTimeoutMs: number;
}

/** Records every call; the wrapped opinionated reconciler adds and removes the finalizer. */
class RecordingReconciler implements Reconciler<ConfigMap> {
  constructor(
    private readonly recorder: CallRecorder,
    private readonly workMs: number,
  ) {}

  async reconcile(ctx: HandlerContext, { action, object }: ReconcileRequest<ConfigMap>): Promise<ReconcileResult> {
    await this.record(ctx, object, kindOf(action, object));
    return {};
  }

  /** The object moved to another replica: recorded, nothing cleaned up. */
  async release(ctx: HandlerContext, object: ConfigMap): Promise<void> {
    await this.record(ctx, object, 'release');
  }

  private async record(ctx: HandlerContext, object: ConfigMap, kind: CallKind): Promise<void> {
    const call = this.recorder.begin({ object: `${object.metadata.namespace ?? ''}/${object.metadata.name}`, uid: object.metadata.uid ?? '', kind, version: versionOf(object) });
    let outcome: CallOutcome = 'ok';
    let wrote = false;
    try {
      if (kind !== 'release') await sleep(this.workMs, undefined, { signal: ctx.signal });
      ctx.signal.throwIfAborted();
      // The side effect (the end line's `wrote`) only while the object is still ours: a replica
      // frozen in this call wakes with its member Lease stale, before its ring can abort the signal.
      if (kind !== 'release' && ctx.stillOwned?.() === false) {
        outcome = 'fenced';
        throw new Error('the object is no longer this replica’s');
      }
      wrote = kind !== 'release';
    } catch (error) {
      if (outcome !== 'fenced') outcome = ctx.signal.aborted ? 'aborted' : 'error';
      throw error;
    } finally {
      this.recorder.end(call, outcome, wrote);
    }
  }
}

/** The kind of call a reconcile request is. */
function kindOf(action: ReconcileAction, object: ConfigMap): CallKind {
  switch (action) {
    case ReconcileAction.Created:
      return 'add';
    case ReconcileAction.Deleted:
      // The opinionated reconciler delegates the deletion while our finalizer holds the object; a Deleted without it is the final delete event.
      return hasFinalizer(object, SHARD_TEST_FINALIZER) ? 'cleanup' : 'delete';
    default:
      return 'update';
  }
}

const options = JSON.parse(process.argv[2] ?? '{}') as ShardedOperatorOptions;
const kubeConfig = loadKubeConfig();
const client = createClient(ConfigMapKind, kubeConfig);
const opinionated = newOpinionatedReconciler<ConfigMap>(client, SHARD_TEST_FINALIZER);
const recording = new RecordingReconciler(new CallRecorder(options.record, options.identity), options.workMs);
// Its `release` passes to the recording reconciler's.
opinionated.wrap(recording);

const { staticShard, sharding } = options;
const informer: Informer<ConfigMap> =
  sharding !== undefined
    ? new ShardedInformer<ConfigMap>(ConfigMapKind, client, options.namespace, { logger: noopLogger })
    : new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, client, options.namespace, { logger: noopLogger, ...(staticShard === undefined ? {} : { shard: [equalShardRange(staticShard.index, staticShard.count)] }) });
// Short retries: a failed finalizer patch (a conflict with the writer) is retried within the handling bound.
const controller = new InformerController({ logger: noopLogger, retryPolicy: exponentialBackoffRetryPolicy(100, 8, { maxDelay: 1000 }) });
controller.addInformer(informer, 'configmaps');
controller.addReconciler(opinionated, 'configmaps');
const operator = new Operator();
operator.addController(controller);

const announceSync = setInterval(() => {
  if (!controller.hasSynced()) return;
  console.log('synced');
  clearInterval(announceSync);
}, 20);
const { exitCode, error } = await runOperator({
  operator,
  shutdownDeadlineMs: 20_000,
  // The ring's hand-over lines go to stdout, where the fleet keeps them.
  logger: sharding === undefined ? noopLogger : consoleLogger,
  ...(sharding === undefined
    ? {}
    : { sharding: { name: sharding.name, namespace: options.namespace, identity: options.identity, client: createClient(LeaseKind, kubeConfig), slots: sharding.slots, leaseDurationMs: sharding.leaseDurationMs, renewDeadlineMs: sharding.renewDeadlineMs, retryPeriodMs: sharding.retryPeriodMs, handOverTimeoutMs: sharding.handOverTimeoutMs } }),
});
clearInterval(announceSync);
if (error !== undefined) console.error(`runOperator failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`);
process.exitCode = exitCode;
