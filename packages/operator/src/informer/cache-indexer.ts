/**
 * Named indexes over an informer's cache (client-go's `Indexers` / `ByIndex`, controller-runtime's
 * field indexes), so that "the children of this owner" or "the objects with label app=x" is a map
 * lookup, not a scan of the cache.
 *
 * Flow: a `CacheIndexer` indexes every object already in `informer.store`, then follows the
 * informer's events (it is one of its handlers). A lookup returns the cache's current objects for
 * the keys indexed under a value, and drops any whose current state no longer yields that value.
 *
 * Guarantees: a lookup never returns an object that is not in the cache, nor one whose cached state
 * does not match. Caveat (a difference from client-go, whose indexes are updated in the same step as
 * the store): an object enters the index when its event reaches the indexer's handler, so create
 * the indexer before adding other handlers to the informer for it to see every object before they do.
 * Index functions must be pure and cheap; one that throws indexes the object under no value.
 */
import { objectKey } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { InvalidArgumentError } from '../errors.js';
import type { Informer } from './informer.js';
import type { HandlerContext, ResourceWatcher } from '../handlers/resource-watcher.js';

/** The values an object is indexed under (client-go `IndexFunc`); none to leave it out. */
export type IndexFunc<T extends KubeObject = KubeObject> = (object: T) => readonly string[];

/** Index functions by index name. */
export type Indexers<T extends KubeObject = KubeObject, N extends string = string> = Record<N, IndexFunc<T>>;

/** Indexes an object under the uid of each of its owners (`metadata.ownerReferences[].uid`). */
export const indexByOwnerUid: IndexFunc = (object) => (object.metadata.ownerReferences ?? []).map((o) => o.uid);

/** Indexes an object under its namespace (client-go's `MetaNamespaceIndexFunc`); cluster-scoped objects under ''. */
export const indexByNamespace: IndexFunc = (object) => [object.metadata.namespace ?? ''];

/** Indexes an object under the value of one label; objects without it are left out. */
export function indexByLabel(label: string): IndexFunc {
  if (!label) throw new InvalidArgumentError('label cannot be empty');
  return (object) => {
    const value = object.metadata.labels?.[label];
    return value === undefined ? [] : [value];
  };
}

/** Indexes an object under a field read by `read` (controller-runtime's field index); undefined leaves it out. */
export function indexByField<T extends KubeObject>(read: (object: T) => string | undefined): IndexFunc<T> {
  if (typeof read !== 'function') throw new InvalidArgumentError('read must be a function');
  return (object) => {
    const value = read(object);
    return value === undefined ? [] : [value];
  };
}

const NOTHING: readonly string[] = [];
const RESOLVED = Promise.resolve();

/** Named indexes over one informer's cache, with typed index names `N`. */
export class CacheIndexer<T extends KubeObject = KubeObject, N extends string = string> {
  private readonly indexFuncs = new Map<string, IndexFunc<T>>();
  /** index name -> value -> keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  /** index name -> key -> the values it is indexed under (to unindex without the old object). */
  private readonly valuesOf = new Map<string, Map<string, readonly string[]>>();
  private failures = 0;

  /** Indexes what `informer.store` holds now and follows its events. @throws InvalidArgumentError for a missing informer or index function. */
  constructor(
    private readonly informer: Informer<T>,
    indexers: Indexers<T, N>,
  ) {
    if (informer == null) throw new InvalidArgumentError('informer cannot be nil');
    this.addIndexers(indexers);
    informer.addEventHandler(this.handler);
  }

  /** Adds indexes (at any time; built from the cache at once). @throws InvalidArgumentError for a name already used or a non-function. */
  addIndexers<M extends string>(indexers: Indexers<T, M>): CacheIndexer<T, N | M> {
    for (const [name, fn] of Object.entries<IndexFunc<T>>(indexers)) {
      if (typeof fn !== 'function') throw new InvalidArgumentError(`index "${name}" needs a function`);
      if (this.indexFuncs.has(name)) throw new InvalidArgumentError(`index "${name}" already exists`);
      this.indexFuncs.set(name, fn);
      this.indices.set(name, new Map());
      this.valuesOf.set(name, new Map());
      for (const object of this.informer.store.values()) this.indexOne(name, fn, object);
    }
    return this;
  }

  /** The cached objects indexed under `value` in index `name` (client-go `ByIndex`). @throws InvalidArgumentError for an unknown index. */
  byIndex(name: N, value: string): T[] {
    const fn = this.indexFunc(name);
    const out: T[] = [];
    for (const key of this.indices.get(name)!.get(value) ?? []) {
      const object = this.informer.store.get(key);
      if (object !== undefined && this.valuesFor(fn, object, false).includes(value)) out.push(object);
    }
    return out;
  }

  /** The keys (`namespace/name`) of {@link byIndex} (client-go `IndexKeys`). */
  indexKeys(name: N, value: string): string[] {
    return this.byIndex(name, value).map((o) => objectKey(o));
  }

  /** The values index `name` holds objects under (client-go `ListIndexFuncValues`). */
  indexValues(name: N): string[] {
    this.indexFunc(name);
    return [...this.indices.get(name)!.keys()];
  }

  /** How many times an index function threw or returned something other than an array (the object was left out of that index). */
  get indexFuncErrors(): number {
    return this.failures;
  }

  private indexFunc(name: string): IndexFunc<T> {
    const fn = this.indexFuncs.get(name);
    if (fn === undefined) throw new InvalidArgumentError(`no index named "${name}"`);
    return fn;
  }

  private readonly handler: ResourceWatcher<T> = {
    add: (_ctx: HandlerContext, object: T) => this.reindex(object),
    update: (_ctx: HandlerContext, _old: T, object: T) => this.reindex(object),
    delete: (_ctx: HandlerContext, object: T) => {
      const key = objectKey(object);
      for (const name of this.indexFuncs.keys()) this.unindex(name, key);
      return RESOLVED;
    },
  };

  private reindex(object: T): Promise<void> {
    if (object?.metadata == null) return RESOLVED;
    const key = objectKey(object);
    for (const [name, fn] of this.indexFuncs) {
      this.unindex(name, key);
      this.indexOne(name, fn, object);
    }
    return RESOLVED;
  }

  private indexOne(name: string, fn: IndexFunc<T>, object: T): void {
    const values = this.valuesFor(fn, object, true);
    if (values.length === 0) return;
    const key = objectKey(object);
    const index = this.indices.get(name)!;
    for (const value of values) {
      let keys = index.get(value);
      if (keys === undefined) {
        keys = new Set();
        index.set(value, keys);
      }
      keys.add(key);
    }
    this.valuesOf.get(name)!.set(key, values);
  }

  /** The values of `fn` for `object`, deduplicated; none when it throws or returns something else (counted when `count`). */
  private valuesFor(fn: IndexFunc<T>, object: T, count: boolean): readonly string[] {
    let values: readonly string[];
    try {
      values = fn(object);
      if (!Array.isArray(values)) throw new TypeError('not an array');
    } catch {
      if (count) this.failures++;
      return NOTHING;
    }
    const strings = values.filter((v) => typeof v === 'string');
    return strings.length > 1 ? [...new Set(strings)] : strings;
  }

  private unindex(name: string, key: string): void {
    const byKey = this.valuesOf.get(name)!;
    const values = byKey.get(key);
    if (values === undefined) return;
    byKey.delete(key);
    const index = this.indices.get(name)!;
    for (const value of values) {
      const keys = index.get(value);
      if (keys === undefined) continue;
      keys.delete(key);
      if (keys.size === 0) index.delete(value);
    }
  }
}
