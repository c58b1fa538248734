/**
 * operator-sdk-extra's `StdK8sReconciler`: the standard flow for an object whose children are other
 * Kubernetes resources, managed by a chain of phases.
 *
 * Flow (the code mirrors the numbers):
 * 1. Read the object; gone (404) -> done. Being deleted without our finalizer -> done.
 * 2. Finalizer (when one is set): missing -> add it (other finalizers are kept) and end with
 *    `{ requeue: true }`, as upstream; a failed add goes to the K8sReconciler's `onError`.
 * 3. `configure`; 4. `read` (of the {@link K8sReconciler}); a non-empty result ends the reconcile with it.
 * 5. Being deleted: `delete`, remove our finalizer, done (phases do not run).
 * 6. Each phase in order: `configure` -> `read` -> `diff` (a non-empty result of any of them ends
 *    the reconcile with it) -> `create` (needCreate) -> `update` (needUpdate) -> `delete`
 *    (needDelete): all that the diff asks for run, and the result of the last one that ran, when
 *    not empty, ends the reconcile -> else `onSuccess`, whose non-empty result ends the reconcile.
 *    An error of a step goes to the phase's `onError`: its empty result goes on with the next phase,
 *    a non-empty one ends the reconcile, what it throws (or what `onSuccess` throws) goes to the
 *    K8sReconciler's `onError` as a `PhaseError`.
 * 7. `onSuccess` of the K8sReconciler: its result (or its error, as is) is the reconcile's.
 * Errors of steps 2-5 and of phases go to the K8sReconciler's `onError`, which returns the final
 * result or throws (then the level-based controller requeues with backoff). After steps 3-7,
 * however they ended, a changed `status` is written to the status subresource (see `writeBackStatus`).
 */
import type { KubeObject } from '@kubeloop/resource';
import type { EventType } from '../../handlers/event-recorder.js';
import { InvalidArgumentError } from '../../errors.js';
import { validateFinalizerName } from '../../handlers/finalizer.js';
import type { PatchClient } from '../../informer/list-watch-client.js';
import { noopLogger } from '../../observability/logger.js';
import type { Reconciler as LevelReconciler } from '../reconcile/reconciler.js';
import type { Request } from '../reconcile/request.js';
import { resultIsZero } from '../reconcile/result.js';
import type { Result } from '../reconcile/result.js';
import type { HandlerContext } from '../../handlers/resource-watcher.js';
import { PhaseError } from './phase-error.js';
import { ensureFinalizer, errorMessage, finalizerAddFailed, readObject, removeOurFinalizer } from './read-object.js';
import type { StdContext } from './read-object.js';
import type { K8sDiff } from './diff.js';
import type { K8sPhaseReconciler, K8sReconciler, ReconcileData } from './reconciler.js';
import type { StdReconcilerOptions } from './std-reconciler.js';
import { snapshotStatus, writeBackStatus } from './status-write-back.js';

/** Options of {@link StdK8sReconciler}. */
export interface StdK8sReconcilerOptions<T extends KubeObject = KubeObject> extends StdReconcilerOptions {
  /** The phases run when `reconcile` is called without phases. Default: none. */
  phases?: readonly K8sPhaseReconciler<T>[] | undefined;
}

/** See the module documentation for the flow. Create with {@link newStdK8sReconciler}. */
export class StdK8sReconciler<T extends KubeObject = KubeObject> implements LevelReconciler {
  /** The finalizer this reconciler adds and removes; '' for none. */
  readonly finalizer: string;
  private readonly std: StdContext<T>;
  private readonly reconciler: K8sReconciler<T>;
  private readonly phases: readonly K8sPhaseReconciler<T>[];

  /** @throws InvalidArgumentError for a missing client or reconciler, or an invalid finalizer name. */
  constructor(client: PatchClient<T>, finalizer: string, reconciler: K8sReconciler<T>, options: StdK8sReconcilerOptions<T> = {}) {
    if (client == null) throw new InvalidArgumentError('client cannot be nil');
    if (reconciler == null) throw new InvalidArgumentError('reconciler cannot be nil');
    if (finalizer) validateFinalizerName(finalizer);
    this.finalizer = finalizer ?? '';
    this.reconciler = reconciler;
    this.phases = [...(options.phases ?? [])];
    this.std = { client, finalizer: this.finalizer, logger: options.logger ?? noopLogger, recorder: options.recorder };
  }

  /**
   * Reconciles the object of `request` and its children.
   * @param data shared by every step and phase of this reconcile. Default: a new empty object.
   * @param phases the phases, in order (Go's variadic argument). Default: the `phases` option.
   */
  async reconcile(ctx: HandlerContext, request: Request, data: ReconcileData = {}, ...phases: K8sPhaseReconciler<T>[]): Promise<Result> {
    const chain = phases.length > 0 ? phases : this.phases;
    // 1.
    const object = await readObject(this.std, ctx, request);
    if (object === undefined) return {};
    const r = this.reconciler;
    // 2.
    let finalizer;
    try {
      finalizer = await ensureFinalizer(this.std, ctx, object);
    } catch (err) {
      finalizerAddFailed(this.std, object, err);
      return (await r.onError(ctx, object, data, err)) ?? {};
    }
    if (finalizer === 'added') return { requeue: true };
    if (finalizer === 'gone') return {};
    const status = snapshotStatus(object);
    try {
      return await this.steps(ctx, request, object, data, chain);
    } finally {
      await writeBackStatus(this.std, ctx, object, status);
    }
  }

  /** Steps 3-7. */
  private async steps(ctx: HandlerContext, request: Request, object: T, data: ReconcileData, chain: readonly K8sPhaseReconciler<T>[]): Promise<Result> {
    const r = this.reconciler;
    try {
      // 3.
      let result = await r.configure(ctx, request, object);
      if (!resultIsZero(result)) return result;
      // 4.
      result = await r.read(ctx, object, data);
      if (!resultIsZero(result)) return result;
      // 5.
      if (object.metadata.deletionTimestamp) {
        await r.delete(ctx, object, data);
        await removeOurFinalizer(this.std, ctx, object);
        this.event(object, 'Normal', 'Deleted', 'Resources deleted');
        return {};
      }
    } catch (err) {
      this.event(object, 'Warning', 'Failed', errorMessage(err));
      return (await r.onError(ctx, object, data, err)) ?? {};
    }
    // 6.
    for (const phase of chain) {
      let result: Result;
      try {
        result = await this.runPhase(ctx, request, object, data, phase);
      } catch (err) {
        const failure = new PhaseError(phase.getName(), err);
        this.event(object, 'Warning', 'Failed', failure.message);
        return (await r.onError(ctx, object, data, failure)) ?? {};
      }
      if (!resultIsZero(result)) return result;
    }
    // 7.
    return (await r.onSuccess(ctx, object, data)) ?? {};
  }

  /**
   * Runs one phase; resolves its result (empty: go on with the next phase). Rejects with what the
   * phase's `onError` or `onSuccess` threw.
   */
  private async runPhase(ctx: HandlerContext, request: Request, object: T, data: ReconcileData, phase: K8sPhaseReconciler<T>): Promise<Result> {
    const name = phase.getName();
    let diff: K8sDiff;
    try {
      let result = await phase.configure(ctx, request, object);
      if (!resultIsZero(result)) return result;
      result = await phase.read(ctx, object, data);
      if (!resultIsZero(result)) return result;
      const [phaseDiff, diffResult] = await phase.diff(ctx, object, data);
      if (diffResult !== undefined && !resultIsZero(diffResult)) return diffResult;
      diff = phaseDiff;
      const described = diff.diff ? `: ${diff.diff}` : '';
      // As upstream, every write the diff asks for runs, and the last one's result counts.
      result = {};
      if (diff.needCreate) {
        result = await phase.create(ctx, object, data);
        this.event(object, 'Normal', 'Created', `Phase ${name}: created${described}`);
      }
      if (diff.needUpdate) {
        result = await phase.update(ctx, object, data);
        this.event(object, 'Normal', 'Updated', `Phase ${name}: updated${described}`);
      }
      if (diff.needDelete) {
        result = await phase.delete(ctx, object, data);
        this.event(object, 'Normal', 'Deleted', `Phase ${name}: deleted${described}`);
      }
      if (!resultIsZero(result)) return result;
    } catch (err) {
      this.std.logger.warn(`phase ${name} failed`, { object: `${request.namespace}/${request.name}`, error: err });
      this.event(object, 'Warning', 'Failed', `Phase ${name}: ${errorMessage(err)}`);
      // Throwing from the phase's onError passes the error on to the K8sReconciler's onError.
      return (await phase.onError(ctx, object, data, err)) ?? {};
    }
    return (await phase.onSuccess(ctx, object, data, diff)) ?? {};
  }

  private event(object: T, type: EventType, reason: string, message: string): void {
    this.std.logger.info(message, { object: `${object.metadata.namespace ?? ''}/${object.metadata.name}`, reason });
    this.std.recorder?.recordEvent(object, type, reason, message);
  }
}

/**
 * A new {@link StdK8sReconciler} (operator-sdk-extra `NewStdK8sReconciler`).
 * @param client reads the object and patches its finalizers (`Client<T>` of @kubeloop/resource fits)
 * @param finalizer the finalizer guarding `delete`; '' for none (then `delete` is never called)
 * @throws InvalidArgumentError for a missing client or reconciler, or an invalid finalizer name.
 */
export function newStdK8sReconciler<T extends KubeObject = KubeObject>(
  client: PatchClient<T>,
  finalizer: string,
  reconciler: K8sReconciler<T>,
  options: StdK8sReconcilerOptions<T> = {},
): StdK8sReconciler<T> {
  return new StdK8sReconciler<T>(client, finalizer, reconciler, options);
}
