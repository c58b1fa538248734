import { isNotFound } from '@kubeloop/resource';
import type { Identifier, KubeObject, RequestOptions } from '@kubeloop/resource';
import { InvalidArgumentError } from '../../errors.js';
import type { HandlerContext } from '../../handlers/resource-watcher.js';
import type { Reconciler } from './reconciler.js';
import type { Request } from './request.js';
import type { Result } from './result.js';

/**
 * Reconciles an object that has been read for it (controller-runtime `reconcile.ObjectReconciler[T]`).
 * Wrap it with {@link asReconciler}; an object that no longer exists is not passed on.
 */
export interface ObjectReconciler<T extends KubeObject = KubeObject> {
  reconcile(ctx: HandlerContext, object: T): Promise<Result>;
}

/** What {@link asReconciler} needs to read an object: `Client<T>` of @kubeloop/resource fits. */
export interface ObjectGetter<T extends KubeObject = KubeObject> {
  /** Reads one object; rejects with a 404 `ApiError` (`isNotFound`) when it does not exist. */
  get(id: Identifier, options?: RequestOptions): Promise<T>;
}

/**
 * A {@link Reconciler} that reads the object of each request with `client` and passes it to
 * `reconciler` (controller-runtime `reconcile.AsReconciler`). A request for an object that does not
 * exist (404) is done: the result is empty and `reconciler` is not called. Other read errors are
 * thrown, so the request is retried with backoff.
 * @throws InvalidArgumentError "client cannot be nil", "reconciler cannot be nil".
 */
export function asReconciler<T extends KubeObject>(client: ObjectGetter<T>, reconciler: ObjectReconciler<T>): Reconciler {
  if (client == null) throw new InvalidArgumentError('client cannot be nil');
  if (reconciler == null) throw new InvalidArgumentError('reconciler cannot be nil');
  return {
    async reconcile(ctx: HandlerContext, request: Request): Promise<Result> {
      let object: T;
      try {
        object = await client.get({ namespace: request.namespace, name: request.name }, { signal: ctx.signal });
      } catch (err) {
        if (isNotFound(err)) return {};
        throw err;
      }
      return reconciler.reconcile(ctx, object);
    },
  };
}
