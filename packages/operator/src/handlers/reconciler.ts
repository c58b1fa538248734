import type { KubeObject } from '@kubeloop/resource';
import type { Duration } from 'luxon';
import type { ReconcileAction } from './actions.js';
import type { HandlerContext } from './resource-watcher.js';

/** User state carried from one attempt of a reconcile into its retries. */
export type ReconcileState = Record<string, unknown>;

/** The action that triggered a reconcile and the object at that moment (grafana-app-sdk `ReconcileRequest`). */
export interface ReconcileRequest<T extends KubeObject = KubeObject> {
  action: ReconcileAction;
  object: T;
  /** Undefined on a first attempt; the `state` of the previous attempt's result on retries. */
  state?: ReconcileState | undefined;
}

/** The outcome of a reconcile that did not throw. */
export interface ReconcileResult {
  /** Run this reconcile again after this delay (milliseconds or a luxon Duration). Wins over an error. Default: no requeue. */
  requeueAfter?: number | Duration | undefined;
  /** Replaces the request's `state` for every later retry of this event. */
  state?: ReconcileState | undefined;
}

/**
 * Reconciles one event of one object. Throwing retries per the controller's retry policy
 * (unless the error is a `TerminalError`); `requeueAfter` requeues regardless of errors.
 * To fail and still return a result (Go's `return result, err`: keep `state`, or requeue after a
 * delay), throw a `ReconcileError(cause, result)`.
 */
export interface Reconciler<T extends KubeObject = KubeObject> {
  reconcile(ctx: HandlerContext, request: ReconcileRequest<T>): Promise<ReconcileResult>;
  /**
   * The object left this replica's shard (sharding: another replica owns it now). NOT a deletion:
   * do not run cleanup; only forget what this process holds about it. Called after the controller
   * dropped the object's queued and retrying work. A rejection is reported and counted, never
   * retried. Default: nothing to do.
   */
  release?(ctx: HandlerContext, object: T): Promise<void>;
}
