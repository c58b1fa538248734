import type { KubeObject } from '@kubeloop/resource';
import { InvalidArgumentError } from '../../errors.js';
import type { Informer } from '../../informer/informer.js';

/** Called with the key and the latest known state of an added or updated object; a rejection is retried. */
export type ResourceUpsertFunc<T extends KubeObject = KubeObject> = (key: string, obj: T) => Promise<void> | void;

/** Called with the key and the last known state of a deleted object; a rejection is retried. */
export type ResourceDeleteFunc<T extends KubeObject = KubeObject> = (key: string, obj: T) => Promise<void> | void;

/**
 * Something a {@link Controller} can watch (consul-k8s `controller.Resource`): the informer that
 * watches it, and what to do when an object is added or changed (`upsert`) or deleted (`delete`).
 * Keys are `namespace/name` (`name` for cluster-scoped objects).
 */
export interface Resource<T extends KubeObject = KubeObject> {
  /** The informer the controller runs and reads from. Called once per `run()`. */
  informer(): Informer<T>;
  /**
   * The key exists: an event of it was processed while the informer's cache has it. `obj` is the
   * cache's current state of the key. Throwing retries it with backoff (5 times by default), unless
   * a newer event of the same key arrives first (that one is handled instead).
   */
  upsert(key: string, obj: T): Promise<void> | void;
  /**
   * The key is gone: an event of it was processed while the informer's cache no longer has it.
   * `obj` is the object of that event, its last known state, which may be older than the object's
   * last state on the server (e.g. a delete seen only through a relist). Throwing retries it with
   * backoff (5 times by default). May be called more than once for one deletion: be idempotent.
   */
  delete(key: string, obj: T): Promise<void> | void;
}

/**
 * A {@link Resource} that needs a task of its own while the controller runs (consul-k8s
 * `controller.Backgrounder`). The controller runs it beside the informer, aborts `signal` when it
 * stops, and waits for the returned promise before its own `run()` resolves.
 */
export interface Backgrounder {
  run(signal: AbortSignal): Promise<void> | void;
}

/** True when `resource` also implements {@link Backgrounder}. */
export function isBackgrounder(resource: unknown): resource is Backgrounder {
  return typeof resource === 'object' && resource !== null && typeof (resource as { run?: unknown }).run === 'function';
}

/**
 * Something that happened to a watched object (consul-k8s `controller.Event`): its key and the object
 * at the time of the event (for a delete, the last known state).
 */
export interface Event<T extends KubeObject = KubeObject> {
  /** `namespace/name`, or `name` for cluster-scoped objects. */
  key: string;
  obj: T;
}

/**
 * A {@link Resource} from an informer and two callbacks (consul-k8s `controller.NewResource`).
 * @throws InvalidArgumentError when an argument is missing.
 */
export function newResource<T extends KubeObject = KubeObject>(
  informer: Informer<T>,
  upsert: ResourceUpsertFunc<T>,
  deleteFunc: ResourceDeleteFunc<T>,
): Resource<T> {
  if (informer == null) throw new InvalidArgumentError('informer cannot be nil');
  if (typeof upsert !== 'function') throw new InvalidArgumentError('upsert must be a function');
  if (typeof deleteFunc !== 'function') throw new InvalidArgumentError('delete must be a function');
  return { informer: () => informer, upsert, delete: deleteFunc };
}
