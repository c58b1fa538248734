/**
 * Every open watch, by resource type: receives each applied change from the store and offers it
 * to that type's watchers; sends idle bookmarks; closes or cuts watches on request.
 */
import type { ChangeEvent } from '../storage/change-event.js';
import type { WatchStream } from './watch-stream.js';
import { ShardCounters } from './shard-counters.js';

/** How long a watch that asked for bookmarks may stay silent before it gets one. */
const bookmarkIdleMs = 1000;

/** The open watches. */
export class WatchHub {
  readonly #byType = new Map<string, Set<WatchStream>>();
  #size = 0;
  readonly #currentRv: () => number;
  #timer: NodeJS.Timeout | undefined;
  /** Bytes a watcher may have queued and unsent before it is ended as too slow (see `watch-stream.ts`). */
  readonly maxBufferedBytes: number | undefined;
  /** KEP-5866 counters of every watch (see `shard-counters.ts`). */
  readonly shardCounters = new ShardCounters();

  /**
   * @param currentRv the resourceVersion every watcher has been offered all changes up to.
   * @param options.maxBufferedBytes the slow-watcher bound of every stream. Default: the stream's default.
   */
  constructor(currentRv: () => number, options: { maxBufferedBytes?: number | undefined } = {}) {
    this.#currentRv = currentRv;
    this.maxBufferedBytes = options.maxBufferedBytes;
  }

  /** Starts the idle-bookmark ticker. */
  start(): void {
    this.#timer ??= setInterval(() => this.#tick(), bookmarkIdleMs / 2);
    this.#timer.unref();
  }

  /** Adds a watch; it leaves the hub by itself when it closes. */
  add(stream: WatchStream): void {
    const key = stream.options.storeKey;
    let set = this.#byType.get(key);
    if (!set) this.#byType.set(key, (set = new Set()));
    set.add(stream);
    this.#size++;
    stream.onClose(() => {
      if (set.delete(stream)) this.#size--;
      if (set.size === 0 && this.#byType.get(key) === set) this.#byType.delete(key);
    });
  }

  /** How many watches are open. */
  get size(): number {
    return this.#size;
  }

  /** Offers a change to the watchers of its type. */
  dispatch(storeKey: string, event: ChangeEvent): void {
    const set = this.#byType.get(storeKey);
    if (!set) return;
    for (const stream of set) stream.offer(event);
  }

  /** Ends every watch of a type cleanly (its CRD was deleted). */
  endType(storeKey: string): void {
    for (const stream of [...(this.#byType.get(storeKey) ?? [])]) stream.end();
  }

  /** Cuts every watch (or, `graceful`, ends each cleanly); returns how many. */
  dropAll(mode: 'reset' | 'midLine' | 'graceful'): number {
    const all = [...this.#byType.values()].flatMap((set) => [...set]);
    for (const stream of all) {
      if (mode === 'graceful') stream.end();
      else stream.destroy(mode === 'midLine');
    }
    return all.length;
  }

  /** Writes raw lines into every watch, or those of the resource `plural`; returns how many (fault injection). */
  injectLines(lines: readonly string[], plural: string | undefined): number {
    let n = 0;
    for (const [storeKey, set] of this.#byType) {
      if (plural !== undefined && !storeKey.endsWith(`/${plural}`)) continue;
      for (const stream of set) {
        for (const line of lines) stream.sendRaw(line);
        n++;
      }
    }
    return n;
  }

  /** Ends every watch cleanly and stops the ticker. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const set of [...this.#byType.values()]) for (const stream of [...set]) stream.end();
  }

  #tick(): void {
    const now = Date.now();
    const rv = this.#currentRv();
    for (const set of this.#byType.values()) {
      for (const stream of set) {
        if (stream.options.bookmarks && !stream.catchingUp && now - stream.lastWriteAt >= bookmarkIdleMs) stream.sendBookmark(rv);
      }
    }
  }
}
