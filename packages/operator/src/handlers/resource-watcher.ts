import type { KubeObject } from '@kubeloop/resource';
import type { Logger } from '../observability/logger.js';

/** Context passed to every handler call: cancellation and logging. */
export interface HandlerContext {
  /** Aborts when the controller shuts down; long handlers should pass it to their requests. */
  signal: AbortSignal;
  /**
   * The controller's logger; from an `InformerController` (and the `reconcile` front-end) it is bound to the
   * object, with `kind` and `object` (`namespace/name`) on every line. A `KubernetesBasedInformer` calling
   * handlers added to it directly passes `consoleLogger`.
   */
  logger: Logger;
  /**
   * On a watcher's `add` called for an event of the `InformerController`: true when the object came
   * from the informer's initial list (delivered before it synced), not from a create seen by the
   * watch (client-go's `isInInitialList`). Undefined otherwise (retries included).
   */
  isInInitialList?: boolean | undefined;
  /**
   * With sharding: true while this replica still owns the call's object (its slot runs here and the
   * replica's member Lease is fresh). Check it synchronously right before a side effect that nothing
   * else fences (a call to another system, a file): a replica frozen past its lease (SIGSTOP, a paused
   * VM) wakes with it false, before its ring has had a turn to abort `signal`. Undefined without
   * sharding (every object is this replica's).
   */
  stillOwned?: (() => boolean) | undefined;
}

/**
 * Handles add, update and delete events of one kind (grafana-app-sdk `ResourceWatcher`).
 * A rejected promise is an error: the controller reports it and retries this watcher alone.
 */
export interface ResourceWatcher<T extends KubeObject = KubeObject> {
  add(ctx: HandlerContext, object: T): Promise<void>;
  update(ctx: HandlerContext, oldObject: T, newObject: T): Promise<void>;
  delete(ctx: HandlerContext, object: T): Promise<void>;
  /**
   * The object left this replica's shard (sharding: another replica owns it now). NOT a delete: the
   * object still exists; do not clean up after it, only forget what this process holds about it
   * (caches, timers). The finalizer-based watcher and reconciler never run their delete path for it.
   * A rejection is reported and counted, never retried. Default: nothing to do.
   */
  release?(ctx: HandlerContext, object: T): Promise<void>;
}
