import type { KubeObject } from '@kubeloop/resource';
import type { Reconciler, ReconcileRequest, ReconcileResult } from './reconciler.js';
import type { HandlerContext } from './resource-watcher.js';

/** The function a {@link SimpleReconciler} calls. */
export type ReconcileFunc<T extends KubeObject = KubeObject> = (ctx: HandlerContext, request: ReconcileRequest<T>) => Promise<ReconcileResult>;

/**
 * A {@link Reconciler} made of one optional function (grafana-app-sdk `SimpleReconciler`): without
 * `reconcileFunc`, every request succeeds with an empty result.
 */
export class SimpleReconciler<T extends KubeObject = KubeObject> implements Reconciler<T> {
  reconcileFunc: ReconcileFunc<T> | undefined;
  /** The object left this replica's shard (not a deletion: see `Reconciler.release`). Default: none. */
  releaseFunc: ((ctx: HandlerContext, object: T) => Promise<void>) | undefined;

  constructor(options: { reconcileFunc?: ReconcileFunc<T> | undefined; releaseFunc?: ((ctx: HandlerContext, object: T) => Promise<void>) | undefined } = {}) {
    this.reconcileFunc = options.reconcileFunc;
    this.releaseFunc = options.releaseFunc;
  }

  /** Calls `releaseFunc`, if set. */
  async release(ctx: HandlerContext, object: T): Promise<void> {
    if (this.releaseFunc) await this.releaseFunc(ctx, object);
  }

  /** Calls `reconcileFunc` if set; otherwise returns an empty result. */
  async reconcile(ctx: HandlerContext, request: ReconcileRequest<T>): Promise<ReconcileResult> {
    return this.reconcileFunc ? this.reconcileFunc(ctx, request) : {};
  }
}
