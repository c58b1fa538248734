/**
 * A map of lists (grafana-app-sdk `ListMap`). Go needed locks around it; JavaScript runs one
 * callback at a time, so this is a plain map whose lists keep insertion order.
 */
export class ListMap<K, V> {
  private readonly lists = new Map<K, V[]>();

  /** Appends `items` to the list of `key`, creating the key if needed. */
  addItem(key: K, ...items: V[]): void {
    const list = this.lists.get(key);
    if (list === undefined) this.lists.set(key, items);
    else list.push(...items);
  }

  /** The item at `index` of the list of `key`: `[value, true]`, or `[undefined, false]` if the key or index does not exist. */
  itemAt(key: K, index: number): [value: V | undefined, ok: boolean] {
    const list = this.lists.get(key);
    if (list === undefined || !Number.isInteger(index) || index < 0 || index >= list.length) return [undefined, false];
    return [list[index], true];
  }

  /** Length of the list of `key` (0 when the key does not exist). */
  keySize(key: K): number {
    return this.lists.get(key)?.length ?? 0;
  }

  /** Every key, at the time of the call. */
  keys(): K[] {
    return [...this.lists.keys()];
  }

  /** Calls `fn(index, value)` for each item of the list of `key`, in order, over a snapshot of the list. */
  range(key: K, fn: (index: number, value: V) => void): void {
    const list = this.lists.get(key);
    if (list === undefined) return;
    const snapshot = list.slice();
    for (let i = 0; i < snapshot.length; i++) fn(i, snapshot[i] as V);
  }

  /** Calls `fn(key, index, value)` for every item of every list, over a snapshot. */
  rangeAll(fn: (key: K, index: number, value: V) => void): void {
    const snapshot = [...this.lists].map(([k, list]) => [k, list.slice()] as const);
    for (const [k, list] of snapshot) {
      for (let i = 0; i < list.length; i++) fn(k, i, list[i] as V);
    }
  }

  /** Removes the first item of the list of `key` that `match` accepts; true if one was removed. Order is kept. */
  removeItem(key: K, match: (value: V) => boolean): boolean {
    return this.removeItems(key, match, 1) === 1;
  }

  /** Removes the item at `index` of the list of `key`; a no-op if the key or index does not exist. Order is kept. */
  removeItemAt(key: K, index: number): void {
    const list = this.lists.get(key);
    if (list === undefined || !Number.isInteger(index) || index < 0 || index >= list.length) return;
    list.splice(index, 1);
  }

  /**
   * Removes the first `limit` items of the list of `key` that `match` accepts (every match when
   * `limit < 1`) and returns how many were removed. Order is kept.
   */
  removeItems(key: K, match: (value: V) => boolean, limit: number): number {
    const list = this.lists.get(key);
    if (list === undefined) return 0;
    let removed = 0;
    let write = 0;
    for (let read = 0; read < list.length; read++) {
      const value = list[read] as V;
      if ((limit < 1 || removed < limit) && match(value)) {
        removed++;
        continue;
      }
      list[write++] = value;
    }
    list.length = write;
    return removed;
  }

  /** Removes `key` and its list. */
  removeKey(key: K): void {
    this.lists.delete(key);
  }

  /** Number of keys (a key whose list became empty still counts). */
  size(): number {
    return this.lists.size;
  }
}

/** A new, empty {@link ListMap} keyed by strings (grafana-app-sdk `NewListMap`). */
export function newListMap<V>(): ListMap<string, V> {
  return new ListMap<string, V>();
}
