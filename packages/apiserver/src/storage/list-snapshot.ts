/**
 * A type's objects as they were at an earlier resourceVersion, rebuilt from the current objects
 * and the kept watch history (each change carries the object's previous state): what a paginated
 * list's later pages read, so that every page shows the state at the first page's
 * resourceVersion, as etcd's snapshot reads do. When the history no longer reaches back that
 * far, the snapshot cannot be rebuilt (the real server answers 410 Expired then too).
 */
import type { StoredObject } from './change-event.js';
import type { ObjectStore } from './object-store.js';

/** A read view of one type's objects at one resourceVersion. */
export interface ListSnapshot {
  /** Every key that had an object then, sorted. */
  readonly keys: readonly string[];
  get(key: string): StoredObject | undefined;
}

/** The view of `storeKey` at `rv`; undefined when the history no longer covers the changes after `rv`. */
export function snapshotAt(store: ObjectStore, storeKey: string, rv: number): ListSnapshot | undefined {
  const current = store.sortedKeys(storeKey);
  if (rv >= store.resourceVersion) return { keys: current, get: (key) => store.get(storeKey, key) };
  const changes = store.history(storeKey).after(rv);
  if (!changes) return undefined;
  // Undo the changes newest first: each key ends at its state before its first change after rv.
  const then = new Map<string, StoredObject | null>();
  for (let i = changes.length - 1; i >= 0; i--) {
    const change = changes[i];
    if (change) then.set(change.current.key, change.previous ?? null);
  }
  if (then.size === 0) return { keys: current, get: (key) => store.get(storeKey, key) };
  const keys = new Set(current);
  for (const [key, stored] of then) {
    if (stored) keys.add(key);
    else keys.delete(key);
  }
  return {
    keys: [...keys].sort(),
    get: (key) => (then.has(key) ? (then.get(key) ?? undefined) : store.get(storeKey, key)),
  };
}
