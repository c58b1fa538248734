import { parseApiVersion } from '@kubeloop/resource';
import type { KubeObject, Schema } from '@kubeloop/resource';
import { CannotCastError, ErrNilObject, InvalidArgumentError } from '../errors.js';
import type { Reconciler, ReconcileRequest, ReconcileResult } from './reconciler.js';
import type { HandlerContext } from './resource-watcher.js';

/** A request whose object has been checked to be a `T` (grafana-app-sdk `TypedReconcileRequest`). */
export type TypedReconcileRequest<T extends KubeObject> = ReconcileRequest<T>;

/** Options of {@link TypedReconciler}: how to recognise a `T` (one of `is` or `kind`), and the function to call. */
export interface TypedReconcilerOptions<T extends KubeObject> {
  /** A type guard for `T`. */
  is?: ((object: KubeObject) => object is T) | undefined;
  /** The kind of `T`: an object is a `T` when its apiVersion and kind match. Used when `is` is not given. */
  kind?: Schema | undefined;
  /** Called with the typed request. Default: none (every request succeeds with an empty result). */
  reconcileFunc?: ((ctx: HandlerContext, request: TypedReconcileRequest<T>) => Promise<ReconcileResult>) | undefined;
  /** Called when an object of the type left this replica's shard (not a deletion: see `Reconciler.release`). Default: none. */
  releaseFunc?: ((ctx: HandlerContext, object: T) => Promise<void>) | undefined;
}

/**
 * A reconciler for one type (grafana-app-sdk `TypedReconciler[T]`): TypeScript erases types, so the
 * cast Go does is a check here, by type guard or by apiVersion/kind. An object that fails it is
 * rejected with a {@link CannotCastError}; without `reconcileFunc` every request gets an empty result.
 */
export class TypedReconciler<T extends KubeObject> implements Reconciler {
  reconcileFunc: TypedReconcilerOptions<T>['reconcileFunc'];
  /** The object left this replica's shard (not a deletion: see `Reconciler.release`). Default: none. */
  releaseFunc: TypedReconcilerOptions<T>['releaseFunc'];
  private readonly is: (object: KubeObject) => object is T;

  constructor(options: TypedReconcilerOptions<T>) {
    const { is, kind } = options;
    if (is) this.is = is;
    else if (kind) this.is = (object): object is T => object.kind === kind.kind && object.apiVersion === kind.apiVersion;
    else throw new InvalidArgumentError('TypedReconciler needs a type guard (is) or a kind');
    this.reconcileFunc = options.reconcileFunc;
    this.releaseFunc = options.releaseFunc;
  }

  async reconcile(ctx: HandlerContext, request: ReconcileRequest): Promise<ReconcileResult> {
    if (!this.reconcileFunc) return {};
    const object = request.object;
    if (!object) throw ErrNilObject;
    if (!this.is(object)) {
      const { group } = parseApiVersion(typeof object.apiVersion === 'string' ? object.apiVersion : '');
      throw new CannotCastError({ group, kind: String(object.kind), namespace: object.metadata.namespace ?? '', name: object.metadata.name });
    }
    return this.reconcileFunc(ctx, { action: request.action, object, state: request.state });
  }

  /** Calls `releaseFunc` for an object of the type (others are not ours to release). */
  async release(ctx: HandlerContext, object: KubeObject): Promise<void> {
    if (this.releaseFunc !== undefined && object && this.is(object)) await this.releaseFunc(ctx, object);
  }
}
