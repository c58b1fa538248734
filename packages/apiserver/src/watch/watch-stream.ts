/**
 * One open watch connection: filters changes for its client and writes one compact JSON line
 * per event. Lines queued during one event-loop turn leave together in one `res.write` (one HTTP
 * chunk) at the end of the turn, as kube-apiserver flushes a watcher only when its channel is
 * empty: one system call per watcher per turn rather than per event.
 *
 * Selector semantics (as the real watch cache): an object that enters the selector is ADDED
 * for this watcher, one that leaves it is DELETED (previous content, the change's
 * resourceVersion), and changes outside the selector are not seen at all.
 *
 * What the client asked for first (the initial events, or the kept changes after its
 * resourceVersion) is its catch-up: written one chunk at a time as the socket takes it, never
 * built whole, so a client that does not read pins about one chunk. Live changes offered
 * meanwhile wait behind it.
 *
 * Slow watchers (as kube-apiserver's watch cache, which closes a watcher whose channel stays
 * full): once the live changes queued for a client and not yet taken by its socket exceed
 * `maxBufferedBytes`, the stream stops taking events and ends cleanly after what is already
 * queued; the client reads to the end and re-watches from the last resourceVersion it saw. A
 * client that still has not drained {@link slowWatcherDrainMs} later is cut; one that takes
 * nothing at all is cut by the server's write timeout (`connection-guard.ts`).
 */
import type { ServerResponse } from 'node:http';
import type { FieldSelector, KubeObject, LabelSelector, ShardSelector } from '@kubeloop/resource';
import { eventLine, jsonAtApiVersion } from '../storage/change-event.js';
import type { ChangeEvent, ChangeType, StoredObject } from '../storage/change-event.js';
import { partialObjectMetadataJson } from '../objects/partial-object-metadata.js';
import type { PartialMetadataVersion } from '../objects/partial-object-metadata.js';
import { singleObjectTableJson } from '../table/table-encoding.js';
import type { TableFormat } from '../table/table-encoding.js';
import { pumpResponse } from '../http/response-pump.js';
import type { Pump } from '../http/response-pump.js';
import { flushAtEndOfTurn, joinLines } from './watch-flush-queue.js';

/** Default of {@link WatchStreamOptions.maxBufferedBytes}. */
export const defaultMaxWatchBufferBytes = 64 * 1024 * 1024;

/** How long a slow watcher that was ended may take to read what was queued before its connection is cut. */
export const slowWatcherDrainMs = 30_000;

/** Queued bytes beyond which a batch is written at once rather than at the end of the turn (bounds the copy). */
const flushNowBytes = 1024 * 1024;

/** Bytes of catch-up events gathered into one part (written in slices of `response-pump.ts`'s `sliceBytes`). */
export const catchUpChunkBytes = 64 * 1024;

/** One thing a watch sends in order: an existing object (ADDED), a change, a bookmark, or a raw line (fault injection). */
export type CatchUpItem =
  | { readonly existing: StoredObject }
  | { readonly change: ChangeEvent }
  | { readonly bookmark: number; readonly annotations?: Record<string, string> | undefined }
  | { readonly raw: string };

/** About the bytes an item's line takes (the object's JSON dominates), to bound what waits behind a catch-up. */
function approximateBytes(item: CatchUpItem): number {
  if ('change' in item) return item.change.current.json.length;
  if ('raw' in item) return item.raw.length;
  return 256;
}

/** What a watch selects and how it is written. */
export interface WatchStreamOptions {
  readonly storeKey: string;
  /** The apiVersion the client asked for (objects are rewritten when it differs from storage). */
  readonly apiVersion: string;
  readonly kind: string;
  /** Only this namespace; undefined for all. */
  readonly namespace: string | undefined;
  readonly labelSelector: LabelSelector | undefined;
  readonly fieldSelector: FieldSelector | undefined;
  /** KEP-5866: only objects whose field hashes into one of these ranges. Default: every object. */
  readonly shardSelector?: ShardSelector | undefined;
  /** Called for each event not sent because its object is outside `shardSelector` (`apiserver_watch_filtered_events_total`). Default: none. */
  readonly onShardFiltered?: (() => void) | undefined;
  /** Changes at or before this resourceVersion are not sent (the client has them). */
  readonly sinceRv: number;
  /** The client asked for BOOKMARK events. */
  readonly bookmarks: boolean;
  /**
   * Events carry one-row Tables rather than objects (kubectl's `get -w`); the first event of the
   * stream carries the column definitions. Undefined: plain objects.
   */
  readonly table: TableFormat | undefined;
  /** Events carry `PartialObjectMetadata` of this apiVersion rather than objects (a metadata-only watch). Default: plain objects. */
  readonly metadata?: PartialMetadataVersion | undefined;
  /** A client with more queued and unsent bytes than this is ended as too slow. Default {@link defaultMaxWatchBufferBytes}. */
  readonly maxBufferedBytes?: number;
}

/** An open watch. */
export class WatchStream {
  readonly options: WatchStreamOptions;
  /** `Date.now()` of the last write, for idle bookmarks. */
  lastWriteAt = Date.now();
  #closed = false;
  readonly #res: ServerResponse;
  readonly #filtered: boolean;
  readonly #closeHandlers: (() => void)[] = [];
  /** Table column definitions still to be sent (with the first event). */
  #tableHeaders = true;
  /** Lines queued this turn, written together by {@link WatchStream.flush}. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  readonly #maxBufferedBytes: number;
  /** Unsent bytes beyond which the watcher is too slow; set again when a catch-up is done. */
  #limit: number;
  /**
   * True while the catch-up (see {@link WatchStream.catchUp}) is being queued. Live changes wait
   * meanwhile as items, their lines made when their turn comes (a Table's column definitions go
   * with whichever line leaves first).
   */
  #catchingUp = false;
  #held: CatchUpItem[] = [];
  /** The catch-up being written. */
  #pump: Pump | undefined;
  #heldTaken = 0;
  #heldBytes = 0;

  constructor(res: ServerResponse, options: WatchStreamOptions) {
    this.#res = res;
    this.options = options;
    this.#filtered = options.namespace !== undefined || options.labelSelector !== undefined || options.fieldSelector !== undefined || options.shardSelector !== undefined;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? defaultMaxWatchBufferBytes;
    this.#limit = this.#maxBufferedBytes;
    // In Node 20 the response's 'close' is what reliably reports a client going away. It is emitted
    // once: a request that waited (latency, a slow body) may find its client already gone.
    res.on('close', () => this.#markClosed());
    if (res.destroyed) this.#markClosed();
  }

  /**
   * Sends `items` (initial events, kept changes, the bookmark that ends them) one chunk at a
   * time as the socket takes them, then the live changes offered meanwhile, then live changes as
   * they come. Live lines waiting behind the catch-up count against `maxBufferedBytes`. Called
   * once, before any live change is offered; until then, changes are written as they come.
   */
  catchUp(items: Iterable<CatchUpItem>): void {
    this.#catchingUp = true;
    const requested = items[Symbol.iterator]();
    let requestedDone = false;
    const nextItem = (): CatchUpItem | undefined => {
      if (!requestedDone) {
        const next = requested.next();
        if (!next.done) return next.value;
        requestedDone = true;
      }
      return this.#takeHeld();
    };
    this.#pump = pumpResponse(
      this.#res,
      () => {
        if (this.#closed) return undefined;
        let item: CatchUpItem | undefined;
        while (this.#pendingBytes < catchUpChunkBytes && (item = nextItem()) !== undefined) this.#queueCatchUp(item);
        return this.#takePending();
      },
      () => {
        this.#pump = undefined;
        this.#goLive();
      },
    );
  }

  /** The queued lines as one buffer (undefined when none), no longer queued. */
  #takePending(): Buffer | undefined {
    const pending = this.#pending;
    if (this.#closed || pending.length === 0) return undefined;
    const bytes = this.#pendingBytes;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.lastWriteAt = Date.now();
    return pending.length === 1 ? pending[0] : Buffer.concat(pending, bytes);
  }

  /** The oldest live item held behind the catch-up. */
  #takeHeld(): CatchUpItem | undefined {
    const item = this.#held[this.#heldTaken];
    if (item === undefined) {
      this.#held = [];
      this.#heldTaken = 0;
      return undefined;
    }
    this.#held[this.#heldTaken++] = undefined as unknown as CatchUpItem;
    this.#heldBytes -= approximateBytes(item);
    return item;
  }

  /** True while the catch-up is being written (idle bookmarks would only wait behind it). */
  get catchingUp(): boolean {
    return this.#catchingUp;
  }

  #queueCatchUp(item: CatchUpItem): void {
    if ('existing' in item) {
      const stored = item.existing;
      if (this.#inShard(stored.object) && this.#matchesSelectors(stored.object)) this.#queue(eventLine('ADDED', this.#objectJson(stored.object, () => jsonAtApiVersion(stored, this.options.apiVersion))));
    } else if ('change' in item) {
      const line = this.#lineFor(item.change);
      if (line) this.#queue(line);
    } else if ('bookmark' in item) {
      this.#queue(this.#bookmarkLine(item.bookmark, item.annotations));
    } else {
      this.#queue(item.raw);
    }
  }

  /** The catch-up and what was held behind it are queued: from now on, unsent bytes beyond `maxBufferedBytes` end the watcher. */
  #goLive(): void {
    this.#catchingUp = false;
    this.#limit = this.#maxBufferedBytes + this.#pendingBytes + this.#res.writableLength;
    this.flush();
  }

  /** Holds a live item behind the catch-up; ends a watcher that falls `maxBufferedBytes` behind. */
  #hold(item: CatchUpItem): void {
    const bytes = approximateBytes(item);
    if (this.#heldBytes + bytes > this.#maxBufferedBytes) {
      this.#endSlow();
      return;
    }
    this.#held.push(item);
    this.#heldBytes += bytes;
  }

  /** True once the connection is gone or ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Runs `fn` once when the stream closes for any reason. */
  onClose(fn: () => void): void {
    if (this.#closed) fn();
    else this.#closeHandlers.push(fn);
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#held = [];
    this.#heldTaken = 0;
    this.#heldBytes = 0;
    for (const fn of this.#closeHandlers.splice(0)) fn();
  }

  /** True when the object is selected by this watch. */
  matches(obj: KubeObject): boolean {
    const shardSelector = this.options.shardSelector;
    return this.#matchesSelectors(obj) && (shardSelector === undefined || shardSelector.matches(obj));
  }

  /** The namespace, label and field selectors (not the shard). */
  #matchesSelectors(obj: KubeObject): boolean {
    const { namespace, labelSelector, fieldSelector } = this.options;
    if (namespace !== undefined && obj.metadata.namespace !== namespace) return false;
    if (labelSelector && !labelSelector.matches(obj.metadata.labels)) return false;
    if (fieldSelector && !fieldSelector.matchesObject(obj)) return false;
    return true;
  }

  /**
   * False, counted, when the object is outside this watch's shard. Tested once per event: the
   * hashed fields (uid, namespace) never change, so an object never moves in or out of a shard.
   */
  #inShard(obj: KubeObject): boolean {
    const shardSelector = this.options.shardSelector;
    if (shardSelector === undefined || shardSelector.matches(obj)) return true;
    this.options.onShardFiltered?.();
    return false;
  }

  /** Delivers a live change if this watcher should see it. */
  offer(event: ChangeEvent): void {
    if (this.#closed || event.rv <= this.options.sinceRv) return;
    if (this.#catchingUp) return this.#hold({ change: event });
    const line = this.#lineFor(event);
    if (line) this.#write(line);
  }

  /** The line this watcher gets for a change, if any. */
  #lineFor(event: ChangeEvent): Buffer | undefined {
    if (event.rv <= this.options.sinceRv) return undefined;
    const apiVersion = this.options.apiVersion;
    const metadata = this.options.metadata;
    if (!this.#filtered) {
      if (metadata) return event.metadataLineAs(event.type, metadata);
      if (this.options.table) return event.lineAs(event.type, apiVersion, this.options.table, this.#takeTableHeaders());
      return apiVersion === event.current.object.apiVersion ? event.line() : event.lineAs(event.type, apiVersion);
    }
    if (!this.#inShard(event.current.object)) return undefined;
    const now = event.type !== 'DELETED' && this.#matchesSelectors(event.current.object);
    const before = event.previous !== undefined && this.#matchesSelectors(event.previous.object);
    let type: ChangeType;
    if (event.type === 'DELETED') {
      if (!before) return undefined;
      type = 'DELETED';
    } else if (now) type = before ? 'MODIFIED' : 'ADDED';
    else if (before) type = 'DELETED';
    else return undefined;
    const table = this.options.table;
    if (metadata) return event.metadataLineAs(type, metadata);
    return table ? event.lineAs(type, apiVersion, table, this.#takeTableHeaders()) : event.lineAs(type, apiVersion);
  }

  /** True for the stream's first Table event (the one that carries the column definitions). */
  #takeTableHeaders(): boolean {
    const headers = this.#tableHeaders;
    this.#tableHeaders = false;
    return headers;
  }

  /** The event object's JSON: the object itself, its PartialObjectMetadata, or a one-row Table. */
  #objectJson(object: KubeObject, json: () => string): string {
    if (this.options.metadata) return partialObjectMetadataJson(this.options.metadata, object);
    const table = this.options.table;
    return table ? singleObjectTableJson(table, object, json, this.#takeTableHeaders(), Date.now()) : json();
  }

  /** Sends a BOOKMARK at `rv` (after the catch-up, like any live line). */
  sendBookmark(rv: number): void {
    if (this.#catchingUp) return this.#hold({ bookmark: rv });
    this.#write(this.#bookmarkLine(rv, undefined));
  }

  /**
   * A BOOKMARK at `rv`, optionally annotated (`k8s.io/initial-events-end`). A Table watch gets
   * the bookmark object as a one-row Table, as kube-apiserver transforms every event object.
   */
  #bookmarkLine(rv: number, annotations: Record<string, string> | undefined): string {
    const metadata: Record<string, unknown> = { resourceVersion: String(Math.max(rv, this.options.sinceRv)) };
    if (annotations) metadata.annotations = annotations;
    // A bookmark's metadata has no name: it is not a real object.
    const bookmark = { kind: this.options.kind, apiVersion: this.options.apiVersion, metadata } as unknown as KubeObject;
    return eventLine('BOOKMARK', this.#objectJson(bookmark, () => JSON.stringify(bookmark)));
  }

  /** Sends an ERROR event with a Status object, before anything else (a resume from before the kept history). */
  sendError(status: object): void {
    this.#queue(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
  }

  /** Sends `line` as it is, plus a newline (fault injection: garbage in the stream). */
  sendRaw(line: string): void {
    if (this.#catchingUp) return this.#hold({ raw: `${line}\n` });
    this.#write(`${line}\n`);
  }

  /** Queues a live line for the end of the turn; ends a watcher that does not keep up. */
  #write(line: string | Buffer): void {
    if (this.#closed) return;
    const bytes = typeof line === 'string' ? Buffer.from(line, 'utf8') : line;
    if (this.#pendingBytes + bytes.length + this.#res.writableLength > this.#limit) {
      this.#endSlow();
      return;
    }
    this.#queue(bytes);
    if (this.#pendingBytes >= flushNowBytes) this.flush();
  }

  /** Queues a line for the end of the turn, with no bound (the catch-up bounds itself). */
  #queue(line: string | Buffer): void {
    if (this.#closed) return;
    const bytes = typeof line === 'string' ? Buffer.from(line, 'utf8') : line;
    if (this.#pending.push(bytes) === 1) flushAtEndOfTurn(this);
    this.#pendingBytes += bytes.length;
  }

  /** Writes the queued lines in one `res.write` (called at the end of the turn). */
  flush(): void {
    const pending = this.#pending;
    if (this.#closed || pending.length === 0) return;
    const bytes = this.#pendingBytes;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.lastWriteAt = Date.now();
    this.#res.write(joinLines(pending, bytes));
  }

  /** Ends a watcher that does not keep up, after what is queued; cuts it if it does not drain in time. */
  #endSlow(): void {
    const res = this.#res;
    this.end();
    const timer = setTimeout(() => res.destroy(), slowWatcherDrainMs);
    timer.unref();
    res.once('close', () => clearTimeout(timer));
  }

  /** Ends the stream cleanly after the queued lines (timeout, server stop, type removed). */
  end(): void {
    if (this.#closed) return;
    // The rest of a catch-up part being written goes first: the client gets whole lines only.
    const rest = this.#pump?.stop();
    this.#pump = undefined;
    if (rest !== undefined) this.#res.write(rest);
    this.flush();
    this.#res.end();
    this.#markClosed();
  }

  /**
   * Cuts the connection; with `midLine`, after writing the queued lines and half of an event line
   * (fault injection). Without, queued lines are lost, as they would be in a reset.
   */
  destroy(midLine: boolean): void {
    if (this.#closed) return;
    this.#pump?.stop();
    this.#pump = undefined;
    if (midLine) {
      this.flush();
      this.#res.write('{"type":"MODIFIED","object":{"kind":"');
    }
    const socket = this.#res.socket;
    // Give the half line a chance to leave before the reset, so clients see a torn line.
    if (midLine && socket) setImmediate(() => socket.destroy());
    else if (socket) socket.destroy();
    else this.#res.destroy();
    this.#markClosed();
  }
}
