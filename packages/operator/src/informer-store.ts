/**
 * The informer's cache: objects by `namespace/name`. The writer (the informer) holds the
 * {@link InformerStore}; everyone else gets its {@link ReadonlyStore} view, which stays valid
 * across relists because a relist swaps the map behind it in one assignment.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { ReadonlyStore } from './informer.js';

/** A change found by comparing a fresh list with the cache. */
export type StoreDelta<T extends KubeObject> =
  | { readonly type: 'add'; readonly object: T }
  | { readonly type: 'update'; readonly oldObject: T; readonly object: T }
  | { readonly type: 'delete'; readonly object: T };

/** The writable cache of one informer. */
export class InformerStore<T extends KubeObject = KubeObject> {
  private map = new Map<string, T>();
  /** The read-only view handed out to readers; it always reads the current map. */
  readonly view: ReadonlyStore<T>;

  constructor() {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const store = this;
    this.view = {
      get: (key) => store.map.get(key),
      has: (key) => store.map.has(key),
      keys: () => store.map.keys(),
      values: () => store.map.values(),
      get size() {
        return store.map.size;
      },
    };
  }

  get(key: string): T | undefined {
    return this.map.get(key);
  }

  set(key: string, object: T): void {
    this.map.set(key, object);
  }

  delete(key: string): boolean {
    return this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }

  values(): IterableIterator<T> {
    return this.map.values();
  }

  /**
   * Replaces the whole cache with `fresh` (atomically: readers see the old map or the new one,
   * never a mix) and returns what changed, in this order per key: for every key of `fresh`, an add
   * (new key), or a delete of the old object followed by an add (same key, different uid: deleted
   * and recreated while we were not watching), or an update (different resourceVersion); then a
   * delete, with the last known object, for every key that vanished.
   */
  replace(fresh: Map<string, T>): StoreDelta<T>[] {
    const old = this.map;
    const deltas: StoreDelta<T>[] = [];
    for (const [key, object] of fresh) {
      const previous = old.get(key);
      if (previous === undefined) {
        deltas.push({ type: 'add', object });
      } else if (previous.metadata.uid !== undefined && object.metadata.uid !== undefined && previous.metadata.uid !== object.metadata.uid) {
        deltas.push({ type: 'delete', object: previous }, { type: 'add', object });
      } else if (previous.metadata.resourceVersion !== object.metadata.resourceVersion) {
        deltas.push({ type: 'update', oldObject: previous, object });
      }
    }
    for (const [key, previous] of old) {
      if (!fresh.has(key)) deltas.push({ type: 'delete', object: previous });
    }
    this.map = fresh;
    return deltas;
  }
}
