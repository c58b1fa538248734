/**
 * The server's storage: every object of every type, one global resourceVersion counter, and the
 * recent changes of each type for watch resume.
 *
 * Flow of a write: the caller computes the new state from the current one and calls `put` or
 * `remove`; the store assigns the next resourceVersion, makes the change durable (when a log is
 * attached), applies it in memory and hands the change to the listener (the watch hub) in
 * resourceVersion order.
 *
 * Guarantees: memory only, a write is applied synchronously inside `put`/`remove`, so a handler
 * that reads, checks and writes without awaiting in between is atomic. With a log, writes run one
 * at a time through {@link ObjectStore.exclusive} and nothing is applied or seen before it is durable;
 * a write the log refuses is not applied, and fails with a 500 that names no file. Compaction runs
 * after a write is applied and answered: its failure is logged and never fails (or undoes) a write.
 */
import type { KubeObject } from '@kubeloop/resource';
import { ChangeEvent } from './change-event.js';
import type { StoredObject } from './change-event.js';
import { ioFailureSummary } from '../persistence/wal-file-system.js';
import { internalError } from '../http/status-error.js';
import { HistoryBudget } from './history-budget.js';
import { WatchHistory } from '../watch/watch-history.js';

/** One record of the durable log (the shape of `persistence/write-ahead-log.ts`). */
export interface LogRecord {
  rv: number;
  op: 'put' | 'delete';
  key: string;
  object?: unknown;
  /** `object` as the store keeps it, JSON: the record is written from it rather than serialized again. */
  objectJson?: string;
}

/** What the store needs from a durable log. */
export interface DurableLog {
  append(record: LogRecord): Promise<void>;
  /** True when the file grew enough that {@link DurableLog.compact} should run. */
  needsCompaction(): boolean;
  compact(snapshot: LogRecord[]): Promise<void>;
  close(): Promise<void>;
}

/** The objects of one resource type. */
interface Table {
  readonly objects: Map<string, StoredObject>;
  readonly history: WatchHistory;
  /** Keys in order, for pagination; rebuilt lazily after an insert or a removal. */
  sortedKeys: string[] | undefined;
  /** The keys of each namespace (namespaced keys are `namespace/name`): what a namespace holds, without a scan. */
  readonly byNamespace: Map<string, Set<string>>;
}

/** The namespace of a store key: the text before its `/`; none for a cluster-scoped key (names hold no `/`). */
function namespaceOfKey(key: string): string | undefined {
  const slash = key.indexOf('/');
  return slash < 0 ? undefined : key.slice(0, slash);
}

function indexKey(table: Table, key: string): void {
  const namespace = namespaceOfKey(key);
  if (namespace === undefined) return;
  let keys = table.byNamespace.get(namespace);
  if (!keys) table.byNamespace.set(namespace, (keys = new Set()));
  keys.add(key);
}

function unindexKey(table: Table, key: string): void {
  const namespace = namespaceOfKey(key);
  if (namespace === undefined) return;
  const keys = table.byNamespace.get(namespace);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) table.byNamespace.delete(namespace);
}

const noKeys: ReadonlySet<string> = new Set();

/** Receives every applied change, in resourceVersion order. */
export type ChangeListener = (storeKey: string, event: ChangeEvent) => void;

/** The log key of an object: `<storeKey>|<objectKey>`. */
export function logKey(storeKey: string, key: string): string {
  return `${storeKey}|${key}`;
}

/** Splits a log key. */
export function parseLogKey(key: string): { storeKey: string; key: string } | undefined {
  const bar = key.indexOf('|');
  return bar < 0 ? undefined : { storeKey: key.slice(0, bar), key: key.slice(bar + 1) };
}

/** The log key that records the counter itself, so that a compacted log still knows the last resourceVersion. */
export const counterLogKey = '|counter';

/** Options of {@link ObjectStore}. */
export interface ObjectStoreOptions {
  /** Changes kept per resource type for watch resume. */
  historyWindow: number;
  /** Bytes of object JSON the kept changes of all types may hold (see `watch-history.ts`). Default: unbounded. */
  historyBytes?: number;
  /** The last resourceVersion already used (after a replay). Default 0. */
  initialResourceVersion?: number;
  /** Receives diagnostic lines (a failed log compaction). Default: discard. */
  logger?: (line: string) => void;
}

/** Every object, the resourceVersion counter and the per-type change history. */
export class ObjectStore {
  readonly #tables = new Map<string, Table>();
  readonly #historyWindow: number;
  readonly #historyBudget: HistoryBudget | undefined;
  #rv: number;
  #log: DurableLog | undefined;
  #lock: Promise<unknown> = Promise.resolve();
  #listener: ChangeListener | undefined;
  readonly #logger: (line: string) => void;

  constructor(options: ObjectStoreOptions) {
    this.#historyWindow = options.historyWindow;
    this.#historyBudget = options.historyBytes !== undefined ? new HistoryBudget(options.historyBytes) : undefined;
    this.#rv = options.initialResourceVersion ?? 0;
    this.#logger = options.logger ?? ((): void => undefined);
  }

  /** The last resourceVersion assigned (and applied). */
  get resourceVersion(): number {
    return this.#rv;
  }

  /** Whether writes go through a durable log. */
  get durable(): boolean {
    return this.#log !== undefined;
  }

  /** Sets the receiver of applied changes (the watch hub). */
  setListener(listener: ChangeListener): void {
    this.#listener = listener;
  }

  /** Makes every later write durable before it is applied. */
  attachLog(log: DurableLog): void {
    this.#log = log;
  }

  /** Detaches and closes the log (at stop). Waits for the write in progress. */
  async closeLog(): Promise<void> {
    const log = this.#log;
    if (!log) return;
    await this.#lock.catch(() => undefined);
    this.#log = undefined;
    await log.close();
  }

  /**
   * Runs a read-check-write sequence alone. Memory only, the sequence runs at once (writes apply
   * synchronously, so there is nothing to interleave with); with a log, sequences queue.
   */
  exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    if (!this.#log) {
      try {
        return Promise.resolve(fn());
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    const run = this.#lock.then(fn, fn);
    this.#lock = run.catch(() => undefined);
    return run;
  }

  /** Creates the table of a type if missing; its history starts now. */
  ensureTable(storeKey: string): void {
    this.#table(storeKey);
  }

  /** Drops a type's table (after its CRD and objects were deleted). */
  dropTable(storeKey: string): void {
    this.#tables.get(storeKey)?.history.dispose();
    this.#tables.delete(storeKey);
  }

  #table(storeKey: string): Table {
    let table = this.#tables.get(storeKey);
    if (!table) {
      table = { objects: new Map(), history: new WatchHistory(this.#historyWindow, this.#rv, this.#historyBudget), sortedKeys: undefined, byNamespace: new Map() };
      this.#tables.set(storeKey, table);
    }
    return table;
  }

  /** The stored object under a key, if any. */
  get(storeKey: string, key: string): StoredObject | undefined {
    return this.#tables.get(storeKey)?.objects.get(key);
  }

  /** Every stored object of a type (insertion order). */
  values(storeKey: string): IterableIterator<StoredObject> {
    return this.#table(storeKey).objects.values();
  }

  /** How many objects a type has. */
  count(storeKey: string): number {
    return this.#tables.get(storeKey)?.objects.size ?? 0;
  }

  /**
   * The keys of a type's objects in one namespace. Live: it follows later writes, and iterating it
   * while objects are removed is safe (a removed key is skipped).
   */
  keysInNamespace(storeKey: string, namespace: string): ReadonlySet<string> {
    return this.#tables.get(storeKey)?.byNamespace.get(namespace) ?? noKeys;
  }

  /** A type's keys in sorted order (for pagination). */
  sortedKeys(storeKey: string): readonly string[] {
    const table = this.#table(storeKey);
    table.sortedKeys ??= [...table.objects.keys()].sort();
    return table.sortedKeys;
  }

  /** A type's change history. */
  history(storeKey: string): WatchHistory {
    return this.#table(storeKey).history;
  }

  /** Forgets every type's history (fault injection: resumes get 410). */
  forgetHistory(): void {
    for (const table of this.#tables.values()) table.history.forget(this.#rv);
  }

  /** Loads an object from a replayed log without emitting anything. */
  load(storeKey: string, key: string, object: KubeObject): void {
    const rv = Number(object.metadata.resourceVersion ?? '0');
    const table = this.#table(storeKey);
    table.objects.set(key, { object, json: JSON.stringify(object), rv, key });
    table.sortedKeys = undefined;
    indexKey(table, key);
  }

  /** Stores `object` (its resourceVersion is set here) and emits ADDED or MODIFIED. */
  async put(storeKey: string, key: string, object: KubeObject): Promise<StoredObject> {
    const rv = this.#rv + 1;
    object.metadata.resourceVersion = String(rv);
    const stored: StoredObject = { object, json: JSON.stringify(object), rv, key };
    if (this.#log) await this.#persist({ rv, op: 'put', key: logKey(storeKey, key), object, objectJson: stored.json });
    this.#rv = rv;
    const table = this.#table(storeKey);
    const previous = table.objects.get(key);
    table.objects.set(key, stored);
    if (!previous) {
      table.sortedKeys = undefined;
      indexKey(table, key);
    }
    this.#emit(storeKey, table, new ChangeEvent(previous ? 'MODIFIED' : 'ADDED', stored, previous));
    this.#compactIfNeeded();
    return stored;
  }

  /** Removes an object and emits DELETED carrying its last state at a new resourceVersion. */
  async remove(storeKey: string, key: string): Promise<StoredObject | undefined> {
    const table = this.#table(storeKey);
    const previous = table.objects.get(key);
    if (!previous) return undefined;
    const rv = this.#rv + 1;
    const object: KubeObject = { ...previous.object, metadata: { ...previous.object.metadata, resourceVersion: String(rv) } };
    const stored: StoredObject = { object, json: JSON.stringify(object), rv, key };
    if (this.#log) await this.#persist({ rv, op: 'delete', key: logKey(storeKey, key) });
    this.#rv = rv;
    // A concurrent durable write cannot have touched the key: writes are exclusive with a log.
    table.objects.delete(key);
    table.sortedKeys = undefined;
    unindexKey(table, key);
    this.#emit(storeKey, table, new ChangeEvent('DELETED', stored, previous));
    this.#compactIfNeeded();
    return stored;
  }

  #emit(storeKey: string, table: Table, event: ChangeEvent): void {
    table.history.push(event);
    this.#listener?.(storeKey, event);
  }

  async #persist(record: LogRecord): Promise<void> {
    try {
      await (this.#log as DurableLog).append(record);
    } catch (err) {
      // Node's messages name the file; the client learns what failed, not where.
      throw internalError(`storage failure: the write was not made durable and was not applied (${ioFailureSummary((err as Error).cause ?? err)})`);
    }
  }

  // The snapshot is taken now, after the write was applied; the log writes it after the appends
  // already queued and before any later one, so it holds exactly what precedes those.
  #compactIfNeeded(): void {
    const log = this.#log;
    if (!log?.needsCompaction()) return;
    log.compact(this.#snapshot()).catch((err: unknown) => {
      this.#logger(`kubeloop-apiserver: compacting the write-ahead log failed, writes continue on the uncompacted log: ${String((err as Error)?.message ?? err)}`);
    });
  }

  #snapshot(): LogRecord[] {
    const records: LogRecord[] = [];
    for (const [storeKey, table] of this.#tables) {
      for (const stored of table.objects.values()) records.push({ rv: stored.rv, op: 'put', key: logKey(storeKey, stored.key), object: stored.object, objectJson: stored.json });
    }
    records.sort((a, b) => a.rv - b.rv);
    records.push({ rv: this.#rv, op: 'delete', key: counterLogKey });
    return records;
  }
}
