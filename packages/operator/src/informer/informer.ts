import type { KubeObject, Schema } from '@kubeloop/resource';
import type { ResourceWatcher } from '../handlers/resource-watcher.js';

/** A read-only view of an informer's cache, keyed by `namespace/name` (`objectKey`). */
export interface ReadonlyStore<T extends KubeObject = KubeObject> {
  get(key: string): T | undefined;
  has(key: string): boolean;
  keys(): IterableIterator<string>;
  values(): IterableIterator<T>;
  readonly size: number;
}

/**
 * Something that observes objects of one kind and tells handlers about changes
 * (grafana-app-sdk `Informer`, plus the cache accessors of client-go's `SharedInformer`).
 */
export interface Informer<T extends KubeObject = KubeObject> {
  /** Adds a handler. Handlers added after `run()` receive later events. */
  addEventHandler(handler: ResourceWatcher<T>): void;
  /** Runs until the signal aborts; rejects only for a configuration error, never for API errors. */
  run(signal: AbortSignal): Promise<void>;
  /** True once the initial list has been delivered to handlers. */
  hasSynced(): boolean;
  /** Resolves when synced; rejects with the signal's reason if it aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void>;
  /** The resourceVersion of the last list or watch event processed ('' before the first list). */
  lastSyncResourceVersion(): string;
  /** The cache. */
  readonly store: ReadonlyStore<T>;
  /** The kind observed. */
  schema(): Schema;
}
