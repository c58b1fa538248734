/**
 * operator-sdk-extra's `StdReconciler`: the standard flow for an object that stands for a resource
 * outside Kubernetes, calling the steps of a {@link Reconciler}.
 *
 * Flow (the code mirrors the numbers):
 * 1. Read the object; gone (404) -> done. Being deleted without our finalizer -> done.
 * 2. Finalizer (when one is set): missing -> add it (other finalizers are kept) and end with
 *    `{ requeue: true }`, as upstream (the next pass starts from the written object); a failed
 *    add records a Warning Event and is thrown.
 * 3. `configure` -> meta (e.g. the external API client).
 * 4. `read` the external resource into `data`; a non-empty result ends the reconcile with it.
 * 5. Being deleted: `delete` the external resource, remove our finalizer, done.
 * 6. `diff` the actual and expected states.
 * 7. `create` if `needCreate`, then `update` if `needUpdate` (both when both are set); the result
 *    of the last one that ran, when not empty, ends the reconcile with it (no `onSuccess`).
 * 8. `onSuccess`; the result is empty.
 * An error in steps 3-8 calls `onError` (its own failure is logged), records a Warning Event and is
 * thrown: the level-based controller requeues with backoff (a `TerminalError` is not retried).
 * After steps 3-8, however they ended, a changed `status` is written to the status subresource
 * (see `writeBackStatus`).
 *
 * Guarantees: `delete` runs before the finalizer is removed, so the external resource is cleaned up
 * even if the operator was down when the object was deleted. Caveats: every step must be idempotent.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { EventRecorder, EventType } from '../../handlers/event-recorder.js';
import { InvalidArgumentError } from '../../errors.js';
import { validateFinalizerName } from '../../handlers/finalizer.js';
import type { PatchClient } from '../../informer/list-watch-client.js';
import { noopLogger } from '../../observability/logger.js';
import type { Logger } from '../../observability/logger.js';
import type { Reconciler as LevelReconciler } from '../reconcile/reconciler.js';
import type { Request } from '../reconcile/request.js';
import { resultIsZero } from '../reconcile/result.js';
import type { Result } from '../reconcile/result.js';
import type { HandlerContext } from '../../handlers/resource-watcher.js';
import { ensureFinalizer, errorMessage, finalizerAddFailed, readObject, removeOurFinalizer } from './read-object.js';
import type { StdContext } from './read-object.js';
import type { ReconcileData, Reconciler } from './reconciler.js';
import { snapshotStatus, writeBackStatus } from './status-write-back.js';

/** Options of the standard reconcilers (Go's logrus entry and EventRecorder parameters). */
export interface StdReconcilerOptions {
  /** Where steps are logged. Default: `noopLogger`. */
  logger?: Logger | undefined;
  /** Where Events about the object are recorded (e.g. a `ClientEventRecorder`). Default: none. */
  recorder?: EventRecorder | undefined;
}

/** See the module documentation for the flow. Create with {@link newStdReconciler}. Runs in a `reconcile` controller as is. */
export class StdReconciler<T extends KubeObject = KubeObject, Meta = unknown> implements LevelReconciler {
  /** The finalizer this reconciler adds and removes; '' for none. */
  readonly finalizer: string;
  private readonly std: StdContext<T>;
  private readonly reconciler: Reconciler<T, Meta>;

  /** @throws InvalidArgumentError for a missing client or reconciler, or an invalid finalizer name. */
  constructor(client: PatchClient<T>, finalizer: string, reconciler: Reconciler<T, Meta>, options: StdReconcilerOptions = {}) {
    if (client == null) throw new InvalidArgumentError('client cannot be nil');
    if (reconciler == null) throw new InvalidArgumentError('reconciler cannot be nil');
    if (finalizer) validateFinalizerName(finalizer);
    this.finalizer = finalizer ?? '';
    this.reconciler = reconciler;
    this.std = { client, finalizer: this.finalizer, logger: options.logger ?? noopLogger, recorder: options.recorder };
  }

  /**
   * Reconciles the object of `request` with its external resource.
   * @param data shared by the steps of this reconcile. Default: a new empty object.
   */
  async reconcile(ctx: HandlerContext, request: Request, data: ReconcileData = {}): Promise<Result> {
    // 1.
    const object = await readObject(this.std, ctx, request);
    if (object === undefined) return {};
    // 2.
    let finalizer;
    try {
      finalizer = await ensureFinalizer(this.std, ctx, object);
    } catch (err) {
      finalizerAddFailed(this.std, object, err);
      throw err;
    }
    if (finalizer === 'added') return { requeue: true };
    if (finalizer === 'gone') return {};
    const status = snapshotStatus(object);
    try {
      return await this.steps(ctx, request, object, data);
    } finally {
      await writeBackStatus(this.std, ctx, object, status);
    }
  }

  /** Steps 3-8, with `onError`. */
  private async steps(ctx: HandlerContext, request: Request, object: T, data: ReconcileData): Promise<Result> {
    const r = this.reconciler;
    let meta: Meta | undefined;
    try {
      // 3.
      meta = await r.configure(ctx, request, object);
      // 4.
      const readResult = await r.read(ctx, object, data, meta);
      if (!resultIsZero(readResult)) return readResult;
      // 5.
      if (object.metadata.deletionTimestamp) {
        await r.delete(ctx, object, data, meta);
        await removeOurFinalizer(this.std, ctx, object);
        this.event(object, 'Normal', 'Deleted', 'External resource deleted');
        return {};
      }
      // 6.
      const diff = await r.diff(object, data, meta);
      // 7.
      let result: Result | undefined = {};
      if (diff.needCreate) {
        result = await r.create(ctx, object, data, meta);
        this.event(object, 'Normal', 'Created', 'External resource created');
      }
      if (diff.needUpdate) {
        result = await r.update(ctx, object, data, meta);
        this.event(object, 'Normal', 'Updated', diff.diff ? `External resource updated: ${diff.diff}` : 'External resource updated');
      }
      if (result !== undefined && !resultIsZero(result)) return result;
      // 8.
      await r.onSuccess(ctx, object, data, meta, diff);
      return {};
    } catch (err) {
      try {
        await r.onError(ctx, object, data, meta, err);
      } catch (onErrorFailure) {
        this.std.logger.error('onError failed', { object: `${request.namespace}/${request.name}`, error: onErrorFailure });
      }
      this.event(object, 'Warning', 'Failed', errorMessage(err));
      throw err;
    }
  }

  private event(object: T, type: EventType, reason: string, message: string): void {
    this.std.logger.info(message, { object: `${object.metadata.namespace ?? ''}/${object.metadata.name}`, reason });
    this.std.recorder?.recordEvent(object, type, reason, message);
  }
}

/**
 * A new {@link StdReconciler} (operator-sdk-extra `NewStdReconciler`).
 * @param client reads the object and patches its finalizers (`Client<T>` of @kubeloop/resource fits)
 * @param finalizer the finalizer guarding `delete`; '' for none (then `delete` is never called)
 * @throws InvalidArgumentError for a missing client or reconciler, or an invalid finalizer name.
 */
export function newStdReconciler<T extends KubeObject = KubeObject, Meta = unknown>(
  client: PatchClient<T>,
  finalizer: string,
  reconciler: Reconciler<T, Meta>,
  options: StdReconcilerOptions = {},
): StdReconciler<T, Meta> {
  return new StdReconciler<T, Meta>(client, finalizer, reconciler, options);
}
