import type { HandlerContext } from '../../handlers/resource-watcher.js';
import type { Request } from './request.js';
import type { Result } from './result.js';

/**
 * Reconciles one object, named by its key (controller-runtime `reconcile.Reconciler`).
 *
 * Level-based: the request carries neither the event nor the object; read the current state (and
 * see a deleted object as missing) and make the world match it. Contract of the controller:
 * - throws -> the request is requeued with the rate limiter's backoff; a thrown `TerminalError`
 *   is reported and not requeued;
 * - `requeueAfter` > 0 -> the backoff is reset and the request requeued after that delay;
 * - `requeue: true` -> requeued with the rate limiter's backoff;
 * - otherwise -> the backoff is reset; the next event of the object triggers the next reconcile.
 */
export interface Reconciler {
  reconcile(ctx: HandlerContext, request: Request): Promise<Result>;
}

/** A reconcile function (controller-runtime `reconcile.Func`). */
export type ReconcileFunc = (ctx: HandlerContext, request: Request) => Promise<Result>;

/** A {@link Reconciler} that calls `fn` (controller-runtime `reconcile.Func`). */
export function reconcileFunc(fn: ReconcileFunc): Reconciler {
  return { reconcile: fn };
}
