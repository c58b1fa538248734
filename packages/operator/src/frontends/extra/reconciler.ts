import type { KubeObject } from '@kubeloop/resource';
import type { HandlerContext } from '../../handlers/resource-watcher.js';
import type { Request } from '../reconcile/request.js';
import type { Result } from '../reconcile/result.js';
import type { Diff, K8sDiff } from './diff.js';

/** What {@link K8sPhaseReconciler.diff} returns: the diff and, optionally, a result that ends the reconcile when not empty. */
export type K8sDiffResult = readonly [diff: K8sDiff, result?: Result | undefined];

/** Values shared by the steps of one reconcile (Go's `data map[string]any`): what `read` found, for `diff` and the writes. */
export type ReconcileData = Record<string, unknown>;

/** A value or a promise of it: every step may be synchronous. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Reconciles an object with a resource outside Kubernetes, driven by a {@link StdReconciler}
 * (operator-sdk-extra `controller.Reconciler`). `Meta` is what `configure` returns (typically the
 * external API client), passed to every later step.
 */
export interface Reconciler<T extends KubeObject = KubeObject, Meta = unknown> {
  /** Prepares the external API client (and, for instance, initial status conditions). */
  configure(ctx: HandlerContext, request: Request, resource: T): MaybePromise<Meta>;
  /** Reads the external resource's actual state into `data`. A non-empty result ends the reconcile with it (also on deletion). */
  read(ctx: HandlerContext, resource: T, data: ReconcileData, meta: Meta): MaybePromise<Result>;
  /** Creates the external resource; called when the diff says `needCreate`. */
  create(ctx: HandlerContext, resource: T, data: ReconcileData, meta: Meta): MaybePromise<Result>;
  /** Updates the external resource; called when the diff says `needUpdate` (after `create` when both are set). */
  update(ctx: HandlerContext, resource: T, data: ReconcileData, meta: Meta): MaybePromise<Result>;
  /** Deletes the external resource; called only with a finalizer, once the object is being deleted. */
  delete(ctx: HandlerContext, resource: T, data: ReconcileData, meta: Meta): MaybePromise<void>;
  /**
   * Called with the error of any step after the finalizer (the reconcile then fails with that error):
   * the place to set an error condition in the status (a changed status is written back). `meta` is
   * undefined when `configure` failed.
   */
  onError(ctx: HandlerContext, resource: T, data: ReconcileData, meta: Meta | undefined, err: unknown): MaybePromise<void>;
  /**
   * Called at the end of a reconcile without error, unless `create` or `update` returned a non-empty
   * result (not on the delete path): the place to set a ready condition (a changed status is written back).
   */
  onSuccess(ctx: HandlerContext, resource: T, data: ReconcileData, meta: Meta, diff: Diff): MaybePromise<void>;
  /** Compares the actual state (in `data`) with the expected state (the object's spec). */
  diff(resource: T, data: ReconcileData, meta: Meta): MaybePromise<Diff>;
}

/**
 * The main object's steps of a {@link StdK8sReconciler} (operator-sdk-extra `controller.K8sReconciler`),
 * around the phases that manage child Kubernetes resources.
 */
export interface K8sReconciler<T extends KubeObject = KubeObject> {
  /** Initial status conditions and the like. A non-empty result ends the reconcile with it. */
  configure(ctx: HandlerContext, request: Request, resource: T): MaybePromise<Result>;
  /** Reads what every phase needs into `data`. A non-empty result ends the reconcile with it. */
  read(ctx: HandlerContext, resource: T, data: ReconcileData): MaybePromise<Result>;
  /** Cleans up once the object is being deleted (called only with a finalizer); children go with their ownerReferences. */
  delete(ctx: HandlerContext, resource: T, data: ReconcileData): MaybePromise<void>;
  /**
   * Called with the error of `configure`, `read`, `delete`, the finalizer writes, or a phase whose
   * own `onError` threw (then a `PhaseError` naming the phase, the phase's error as `cause`).
   * Go's `(res, err)` return: return a result to end the reconcile with it (the error is handled), or
   * throw (usually `err`) to have it retried with backoff. A changed status is written back either way.
   */
  onError(ctx: HandlerContext, resource: T, data: ReconcileData, err: unknown): MaybePromise<Result>;
  /** Called once every phase ended with an empty result; its result (or what it throws, as is) is the reconcile's. */
  onSuccess(ctx: HandlerContext, resource: T, data: ReconcileData): MaybePromise<Result>;
}

/**
 * One phase of a {@link StdK8sReconciler}: one kind of child Kubernetes resource, read, compared,
 * then created, updated and deleted as needed (operator-sdk-extra `controller.K8sPhaseReconciler`).
 * A non-empty result of `configure`, `read` or `diff` ends the reconcile with it; `create`,
 * `update` and `delete` all run as the diff says, and a non-empty result of the last one that ran
 * ends the reconcile (without the phase's `onSuccess`): later phases wait for the requeue.
 */
export interface K8sPhaseReconciler<T extends KubeObject = KubeObject> {
  /** Prepares the phase (e.g. an initial condition). */
  configure(ctx: HandlerContext, request: Request, resource: T): MaybePromise<Result>;
  /** Reads the actual children into `data`. */
  read(ctx: HandlerContext, resource: T, data: ReconcileData): MaybePromise<Result>;
  /** Creates missing children (`diff.needCreate`). */
  create(ctx: HandlerContext, resource: T, data: ReconcileData): MaybePromise<Result>;
  /** Updates differing children (`diff.needUpdate`). */
  update(ctx: HandlerContext, resource: T, data: ReconcileData): MaybePromise<Result>;
  /** Deletes children that should no longer exist (`diff.needDelete`). */
  delete(ctx: HandlerContext, resource: T, data: ReconcileData): MaybePromise<Result>;
  /**
   * Called with the error of any step of this phase (not of its `onSuccess`). Return an empty result
   * to go on with the next phase as if this one had succeeded (the error is handled), a non-empty one
   * to end the reconcile with it, or throw to pass the error on to the {@link K8sReconciler}'s
   * `onError` (as a `PhaseError`).
   */
  onError(ctx: HandlerContext, resource: T, data: ReconcileData, err: unknown): MaybePromise<Result>;
  /** Called at the end of the phase without error; a non-empty result ends the reconcile, what it throws goes to the K8sReconciler's `onError`. */
  onSuccess(ctx: HandlerContext, resource: T, data: ReconcileData, diff: K8sDiff): MaybePromise<Result>;
  /**
   * Compares the children read with the expected ones. Go's `(diff, res, err)`: resolve `[diff]`, or
   * `[diff, result]` where a non-empty `result` ends the reconcile with it; throw for the error.
   */
  diff(ctx: HandlerContext, resource: T, data: ReconcileData): MaybePromise<K8sDiffResult>;
  /** The phase's name, in logs and Events. */
  getName(): string;
}
