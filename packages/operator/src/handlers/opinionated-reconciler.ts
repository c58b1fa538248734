/**
 * A reconciler wrapper that uses a finalizer so that no delete is missed, even across restarts, and
 * that tells start-up re-lists apart from real creations (grafana-app-sdk `OpinionatedReconciler`).
 *
 * The rules, in the order the code applies them (upstream's numbered list, with our fixes marked):
 * 0. (we) The object is being deleted (`deletionTimestamp` set) and the action is not Deleted:
 *    a. our finalizer present -> delegate as Deleted; only when that succeeds (no error, no
 *       requeue), remove our finalizer. A failed removal is retried without delegating again (state),
 *       and a later update of the object (still showing our finalizer) is not delegated again either.
 *       Upstream removed the finalizer without delegating, or before the delete was handled (#559, #1022).
 *    b. our finalizer absent -> delegate unchanged; never add a finalizer to an object being deleted
 *       (the API refuses it; upstream looped on it, #560).
 * 1. Created, finalizer present -> delegate as Resynced (an earlier run handled the creation).
 * 2. Created, finalizer absent -> delegate; if it fails or requeues, return that; then add the
 *    finalizer. A patch error is thrown with a state marker, so the retry skips the delegate call.
 *    With `finalizerFirst` (kube-rs' `finalizer()` order): add the finalizer first (a patch error is
 *    thrown and retried, nothing delegated), then delegate the object as written; a failure or requeue
 *    of the delegate carries a state marker, so the retry only delegates, as Created.
 * 3. Updated or (we) Resynced, finalizer absent -> add the finalizer, don't delegate (the update
 *    caused by the finalizer add is delegated). Upstream's informer delivers resyncs as updates, so
 *    its rule covers them; ours delivers `Resynced`, hence the explicit case.
 * 4. (we) Deleted, and rule 0a already delegated the deletion of this object -> skip, so the user sees
 *    one Deleted per object.
 * 5. Anything else -> delegate unchanged.
 *
 * Guarantees: the finalizer is removed only after the wrapped reconciler handled the deletion;
 * other finalizers are never touched. Caveats: a process restart between removing the finalizer and
 * the object's disappearance delivers the final Deleted too (at-least-once). In the default (upstream)
 * order, a process that dies after the wrapped reconciler's side effect and before the finalizer
 * landed leaves an object without our finalizer: deleted meanwhile, it is gone before the restart,
 * and the side effect leaks. `finalizerFirst` closes that window; its cost is a finalizer on objects
 * whose first reconcile never succeeds (deleting one calls the wrapped reconciler's cleanup for
 * something it may never have created: make the cleanup idempotent).
 */
import type { KubeObject } from '@kubeloop/resource';
import { ReconcileAction } from './actions.js';
import { ErrNilObject, InvalidArgumentError, ReconcileError, isReconcileError } from '../errors.js';
import { addFinalizer, hasFinalizer, removeFinalizer, validateFinalizerName } from './finalizer.js';
import type { PatchClient } from '../informer/list-watch-client.js';
import type { Reconciler, ReconcileRequest, ReconcileResult, ReconcileState } from './reconciler.js';
import type { HandlerContext } from './resource-watcher.js';

/** State key: the wrapped reconciler handled Created; only the finalizer add is left to retry. */
export const OPINIONATED_CREATE_PATCH_PENDING = 'kubeloop-opinionated-reconciler-create-patch-pending';
/** State key: the wrapped reconciler handled the deletion; only the finalizer removal is left to retry. */
export const OPINIONATED_DELETE_PATCH_PENDING = 'kubeloop-opinionated-reconciler-delete-patch-pending';
/** State key (`finalizerFirst`): our finalizer was added for Created; only the delegate call is left to retry. */
export const OPINIONATED_FINALIZER_ADDED = 'kubeloop-opinionated-reconciler-finalizer-added';

/** Options of {@link OpinionatedReconciler}. */
export interface OpinionatedReconcilerOptions {
  /**
   * Add our finalizer to a created object before the wrapped reconciler runs (kube-rs' `finalizer()`
   * order), instead of after its first success (grafana-app-sdk's order). Then no side effect of the
   * wrapped reconciler can happen on an object our finalizer does not guard: a process killed between
   * the two, and the object deleted meanwhile, still gets its cleanup at the restart. Default: false
   * (upstream order: a kill in that window leaks the side effect).
   */
  finalizerFirst?: boolean | undefined;
}

/** See the module documentation for the rules. Create with {@link newOpinionatedReconciler}. */
export class OpinionatedReconciler<T extends KubeObject = KubeObject> implements Reconciler<T> {
  /** The wrapped reconciler; without one, delegated requests succeed with an empty result. */
  reconciler: Reconciler<T> | undefined;
  /** The finalizer this reconciler adds and removes. */
  readonly finalizer: string;

  /** See {@link OpinionatedReconcilerOptions.finalizerFirst}. */
  readonly finalizerFirst: boolean;

  private readonly client: PatchClient<T>;
  /** Objects (by uid) whose deletion was delegated by rule 0a: their final Deleted is skipped once. */
  private readonly deleted = new Set<string>();

  constructor(client: PatchClient<T>, finalizer: string, options: OpinionatedReconcilerOptions = {}) {
    if (!client) throw new InvalidArgumentError('client cannot be nil');
    if (!finalizer) throw new InvalidArgumentError('finalizer cannot be empty');
    validateFinalizerName(finalizer);
    this.client = client;
    this.finalizer = finalizer;
    this.finalizerFirst = options.finalizerFirst ?? false;
  }

  /** Wraps `reconciler`: delegated requests go to it. */
  wrap(reconciler: Reconciler<T>): void {
    this.reconciler = reconciler;
  }

  /**
   * The object left this replica's shard (sharding): passed to the wrapped reconciler's `release`,
   * never as a deletion; our finalizer stays, so the new owner runs the cleanup when it is deleted.
   */
  async release(ctx: HandlerContext, object: T): Promise<void> {
    if (!object) throw ErrNilObject;
    this.deleted.delete(identity(object));
    const wrapped = this.reconciler;
    if (wrapped?.release !== undefined) await wrapped.release(ctx, object);
  }

  async reconcile(ctx: HandlerContext, request: ReconcileRequest<T>): Promise<ReconcileResult> {
    const object = request.object;
    if (!object) throw ErrNilObject;
    const ours = hasFinalizer(object, this.finalizer);
    const id = identity(object);

    // 0. Deletion first.
    if (object.metadata.deletionTimestamp && request.action !== ReconcileAction.Deleted) {
      if (!ours) return this.delegate(ctx, request);
      let result: ReconcileResult = {};
      // Once per object: another update of it (another controller removing its finalizer) still shows ours.
      if (request.state?.[OPINIONATED_DELETE_PATCH_PENDING] !== true && !this.deleted.has(id)) {
        result = await this.delegate(ctx, { ...request, action: ReconcileAction.Deleted });
        if (result.requeueAfter !== undefined) return result;
      }
      this.deleted.add(id);
      try {
        await removeFinalizer(this.client, object, this.finalizer, { signal: ctx.signal });
      } catch (error) {
        throw new ReconcileError(error, { state: withMarker(result.state ?? request.state, OPINIONATED_DELETE_PATCH_PENDING) });
      }
      return result;
    }

    switch (request.action) {
      case ReconcileAction.Created: {
        if (this.finalizerFirst) return this.createFinalizerFirst(ctx, request, ours);
        // 1.
        if (ours) return this.delegate(ctx, { ...request, action: ReconcileAction.Resynced });
        // 2.
        let result: ReconcileResult = {};
        if (request.state?.[OPINIONATED_CREATE_PATCH_PENDING] !== true) {
          result = await this.delegate(ctx, request);
          if (result.requeueAfter !== undefined) return result;
        }
        try {
          await addFinalizer(this.client, object, this.finalizer, { signal: ctx.signal });
        } catch (error) {
          throw new ReconcileError(error, { state: withMarker(result.state ?? request.state, OPINIONATED_CREATE_PATCH_PENDING) });
        }
        return result;
      }
      case ReconcileAction.Updated:
      case ReconcileAction.Resynced:
        // 3.
        if (!ours) {
          await addFinalizer(this.client, object, this.finalizer, { signal: ctx.signal });
          return {};
        }
        break;
      case ReconcileAction.Deleted:
        // 4.
        if (this.deleted.delete(id)) return {};
        break;
      default:
        break;
    }
    // 5.
    return this.delegate(ctx, request);
  }

  /** Rules 1 and 2 with `finalizerFirst`: our finalizer, then the wrapped reconciler. */
  private async createFinalizerFirst(ctx: HandlerContext, request: ReconcileRequest<T>, ours: boolean): Promise<ReconcileResult> {
    // Checked before rule 1: the retry of a failed Created may carry the echo of our finalizer add.
    if (request.state?.[OPINIONATED_FINALIZER_ADDED] === true) return this.delegateMarked(ctx, request);
    if (ours) return this.delegate(ctx, { ...request, action: ReconcileAction.Resynced });
    const written = await addFinalizer(this.client, request.object, this.finalizer, { signal: ctx.signal });
    // Gone before we got to it: nothing to create, and nothing to clean up.
    if (written === undefined) return {};
    return this.delegateMarked(ctx, { ...request, object: written });
  }

  /** Delegates a Created whose finalizer is on: a failure or requeue carries the marker, so its retry only delegates. */
  private async delegateMarked(ctx: HandlerContext, request: ReconcileRequest<T>): Promise<ReconcileResult> {
    let result: ReconcileResult;
    try {
      result = await this.delegate(ctx, request);
    } catch (error) {
      if (isReconcileError(error)) throw new ReconcileError(error.cause, { ...error.result, state: withMarker(error.result.state ?? request.state, OPINIONATED_FINALIZER_ADDED) });
      throw new ReconcileError(error, { state: withMarker(request.state, OPINIONATED_FINALIZER_ADDED) });
    }
    if (result.requeueAfter === undefined) return result;
    return { ...result, state: withMarker(result.state ?? request.state, OPINIONATED_FINALIZER_ADDED) };
  }

  private delegate(ctx: HandlerContext, request: ReconcileRequest<T>): Promise<ReconcileResult> {
    return this.reconciler ? this.reconciler.reconcile(ctx, request) : Promise.resolve({});
  }
}

/**
 * A new {@link OpinionatedReconciler} (grafana-app-sdk `NewOpinionatedReconciler`); call `wrap()` to set
 * the reconciler it guards. `options.finalizerFirst` (default false) adds the finalizer before the
 * wrapped reconciler's first call.
 * @throws InvalidArgumentError "client cannot be nil", "finalizer cannot be empty", or an invalid finalizer name.
 */
export function newOpinionatedReconciler<T extends KubeObject = KubeObject>(client: PatchClient<T>, finalizer: string, options: OpinionatedReconcilerOptions = {}): OpinionatedReconciler<T> {
  return new OpinionatedReconciler<T>(client, finalizer, options);
}

function withMarker(state: ReconcileState | undefined, key: string): ReconcileState {
  return { ...state, [key]: true };
}

function identity(object: KubeObject): string {
  return object.metadata.uid ?? `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}
