/**
 * operator-sdk-extra's `StdK8sReconciler`: the standard flow for an object whose children are other
 * Kubernetes resources, managed by a chain of phases.
 *
 * Flow (the code mirrors the numbers):
 * 1. Read the object; gone (404) -> done.
 * 2. Finalizer (when one is set): add it if missing (other finalizers are kept). Being deleted
 *    without our finalizer -> done.
 * 3. `configure`; 4. `read` (of the {@link K8sReconciler}); a non-empty result ends the reconcile with it.
 * 5. Being deleted: `delete`, remove our finalizer, done (phases do not run).
 * 6. Each phase in order: `configure` -> `read` -> `diff` -> `create` (needCreate) -> `update`
 *    (needUpdate) -> `delete` (needDelete) -> `onSuccess`. A non-empty result of any step ends the
 *    reconcile with it; an error goes to the phase's `onError` and stops the chain.
 * 7. `onSuccess` of the K8sReconciler: its result is the reconcile's result.
 * Errors of steps 3-7 that no phase handled go to the K8sReconciler's `onError`, which returns the
 * final result or throws (then the level-based controller requeues with backoff).
 */
import type { KubeObject } from '@kubeloop/resource';
import type { EventType } from '../event-recorder.js';
import { InvalidArgumentError } from '../errors.js';
import { removeFinalizer, validateFinalizerName } from '../finalizer.js';
import type { PatchClient } from '../list-watch-client.js';
import { noopLogger } from '../logger.js';
import type { Reconciler as LevelReconciler } from '../reconcile/reconciler.js';
import type { Request } from '../reconcile/request.js';
import { resultIsZero } from '../reconcile/result.js';
import type { Result } from '../reconcile/result.js';
import type { HandlerContext } from '../resource-watcher.js';
import { errorMessage, readObject } from './read-object.js';
import type { StdContext } from './read-object.js';
import type { K8sPhaseReconciler, K8sReconciler, ReconcileData } from './reconciler.js';
import type { StdReconcilerOptions } from './std-reconciler.js';

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
    // 1, 2.
    const object = await readObject(this.std, ctx, request);
    if (object === undefined) return {};
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
        await removeFinalizer(this.std.client, object, this.finalizer, { signal: ctx.signal });
        this.event(object, 'Normal', 'Deleted', 'Resources deleted');
        return {};
      }
      // 6.
      for (const phase of chain) {
        const ended = await this.runPhase(ctx, request, object, data, phase);
        if (ended !== undefined) return ended;
      }
      // 7.
      return (await r.onSuccess(ctx, object, data)) ?? {};
    } catch (err) {
      this.event(object, 'Warning', 'Failed', errorMessage(err));
      return (await r.onError(ctx, object, data, err)) ?? {};
    }
  }

  /** Runs one phase; resolves the result that ends the reconcile, or undefined to go on with the next phase. */
  private async runPhase(ctx: HandlerContext, request: Request, object: T, data: ReconcileData, phase: K8sPhaseReconciler<T>): Promise<Result | undefined> {
    const name = phase.getName();
    try {
      let result = await phase.configure(ctx, request, object);
      if (!resultIsZero(result)) return result;
      result = await phase.read(ctx, object, data);
      if (!resultIsZero(result)) return result;
      const diff = await phase.diff(ctx, object, data);
      if (diff.needCreate) {
        result = await phase.create(ctx, object, data);
        this.event(object, 'Normal', 'Created', `Phase ${name}: created${diff.diff ? `: ${diff.diff}` : ''}`);
        if (!resultIsZero(result)) return result;
      }
      if (diff.needUpdate) {
        result = await phase.update(ctx, object, data);
        this.event(object, 'Normal', 'Updated', `Phase ${name}: updated${diff.diff ? `: ${diff.diff}` : ''}`);
        if (!resultIsZero(result)) return result;
      }
      if (diff.needDelete) {
        result = await phase.delete(ctx, object, data);
        this.event(object, 'Normal', 'Deleted', `Phase ${name}: deleted${diff.diff ? `: ${diff.diff}` : ''}`);
        if (!resultIsZero(result)) return result;
      }
      result = await phase.onSuccess(ctx, object, data, diff);
      return resultIsZero(result) ? undefined : result;
    } catch (err) {
      this.std.logger.warn(`phase ${name} failed`, { object: `${request.namespace}/${request.name}`, error: err });
      // Throwing from the phase's onError passes the error on to the K8sReconciler's onError (and its Event).
      const handled = await phase.onError(ctx, object, data, err);
      this.event(object, 'Warning', 'Failed', `Phase ${name}: ${errorMessage(err)}`);
      return handled ?? {};
    }
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
