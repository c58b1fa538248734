import type { KubeObject } from '@kubeloop/resource';
import type { HandlerContext, ResourceWatcher } from './resource-watcher.js';

/** Options of {@link SimpleWatcher}: each function is optional. */
export interface SimpleWatcherFuncs<T extends KubeObject = KubeObject> {
  addFunc?: ((ctx: HandlerContext, object: T) => Promise<void>) | undefined;
  updateFunc?: ((ctx: HandlerContext, oldObject: T, newObject: T) => Promise<void>) | undefined;
  deleteFunc?: ((ctx: HandlerContext, object: T) => Promise<void>) | undefined;
  /** The object left this replica's shard (not a delete: see `ResourceWatcher.release`). Default: none. */
  releaseFunc?: ((ctx: HandlerContext, object: T) => Promise<void>) | undefined;
}

/**
 * A {@link ResourceWatcher} made of optional functions (grafana-app-sdk `SimpleWatcher`): a missing
 * function makes its event a no-op. The fields may be set or replaced at any time.
 */
export class SimpleWatcher<T extends KubeObject = KubeObject> implements ResourceWatcher<T> {
  addFunc: SimpleWatcherFuncs<T>['addFunc'];
  updateFunc: SimpleWatcherFuncs<T>['updateFunc'];
  deleteFunc: SimpleWatcherFuncs<T>['deleteFunc'];
  releaseFunc: SimpleWatcherFuncs<T>['releaseFunc'];

  constructor(funcs: SimpleWatcherFuncs<T> = {}) {
    this.addFunc = funcs.addFunc;
    this.updateFunc = funcs.updateFunc;
    this.deleteFunc = funcs.deleteFunc;
    this.releaseFunc = funcs.releaseFunc;
  }

  /** Calls `addFunc`, if set. */
  async add(ctx: HandlerContext, object: T): Promise<void> {
    if (this.addFunc) await this.addFunc(ctx, object);
  }

  /** Calls `updateFunc`, if set. */
  async update(ctx: HandlerContext, oldObject: T, newObject: T): Promise<void> {
    if (this.updateFunc) await this.updateFunc(ctx, oldObject, newObject);
  }

  /** Calls `deleteFunc`, if set. */
  async delete(ctx: HandlerContext, object: T): Promise<void> {
    if (this.deleteFunc) await this.deleteFunc(ctx, object);
  }

  /** Calls `releaseFunc`, if set. */
  async release(ctx: HandlerContext, object: T): Promise<void> {
    if (this.releaseFunc) await this.releaseFunc(ctx, object);
  }
}
