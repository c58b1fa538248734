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
 * Slow watchers (as kube-apiserver's watch cache, which closes a watcher whose channel stays
 * full): once the bytes queued for a client and not yet taken by its socket exceed
 * `maxBufferedBytes` (plus the size of the initial events or kept changes the client asked for
 * at the start, which are its own request), the stream stops taking events and ends cleanly after
 * what is already queued; the client reads to the end and re-watches from the last
 * resourceVersion it saw. A client that still has not drained {@link slowWatcherDrainMs} later is cut.
 */
import type { ServerResponse } from 'node:http';
import type { FieldSelector, KubeObject, LabelSelector } from '@kubeloop/resource';
import { eventLine, jsonAtApiVersion } from '../storage/change-event.js';
import type { ChangeEvent, ChangeType, StoredObject } from '../storage/change-event.js';
import { partialObjectMetadataJson } from '../objects/partial-object-metadata.js';
import type { PartialMetadataVersion } from '../objects/partial-object-metadata.js';
import { singleObjectTableJson } from '../table/table-encoding.js';
import type { TableFormat } from '../table/table-encoding.js';
import { flushAtEndOfTurn, joinLines } from './watch-flush-queue.js';

/** Default of {@link WatchStreamOptions.maxBufferedBytes}. */
export const defaultMaxWatchBufferBytes = 64 * 1024 * 1024;

/** How long a slow watcher that was ended may take to read what was queued before its connection is cut. */
export const slowWatcherDrainMs = 30_000;

/** Queued bytes beyond which a batch is written at once rather than at the end of the turn (bounds the copy). */
const flushNowBytes = 1024 * 1024;

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
  /** Unsent bytes beyond which the watcher is too slow; none until {@link WatchStream.startLive}. */
  #limit = Infinity;

  constructor(res: ServerResponse, options: WatchStreamOptions) {
    this.#res = res;
    this.options = options;
    this.#filtered = options.namespace !== undefined || options.labelSelector !== undefined || options.fieldSelector !== undefined;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? defaultMaxWatchBufferBytes;
    // In Node 20 the response's 'close' is what reliably reports a client going away. It is emitted
    // once: a request that waited (latency, a slow body) may find its client already gone.
    res.on('close', () => this.#markClosed());
    if (res.destroyed) this.#markClosed();
  }

  /**
   * Called once the initial events or kept changes are queued, before live changes are offered:
   * from now on, unsent bytes beyond `maxBufferedBytes` plus what is queued now end the watcher.
   */
  startLive(): void {
    this.#limit = this.#maxBufferedBytes + this.#pendingBytes + this.#res.writableLength;
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
    for (const fn of this.#closeHandlers.splice(0)) fn();
  }

  /** True when the object is selected by this watch. */
  matches(obj: KubeObject): boolean {
    const { namespace, labelSelector, fieldSelector } = this.options;
    if (namespace !== undefined && obj.metadata.namespace !== namespace) return false;
    if (labelSelector && !labelSelector.matches(obj.metadata.labels)) return false;
    if (fieldSelector && !fieldSelector.matchesObject(obj)) return false;
    return true;
  }

  /** Delivers a change if this watcher should see it. */
  offer(event: ChangeEvent): void {
    if (this.#closed || event.rv <= this.options.sinceRv) return;
    const apiVersion = this.options.apiVersion;
    const metadata = this.options.metadata;
    if (!this.#filtered) {
      if (metadata) this.#write(event.metadataLineAs(event.type, metadata));
      else if (this.options.table) this.#write(event.lineAs(event.type, apiVersion, this.options.table, this.#takeTableHeaders()));
      else this.#write(apiVersion === event.current.object.apiVersion ? event.line() : event.lineAs(event.type, apiVersion));
      return;
    }
    const now = event.type !== 'DELETED' && this.matches(event.current.object);
    const before = event.previous !== undefined && this.matches(event.previous.object);
    let type: ChangeType;
    if (event.type === 'DELETED') {
      if (!before) return;
      type = 'DELETED';
    } else if (now) type = before ? 'MODIFIED' : 'ADDED';
    else if (before) type = 'DELETED';
    else return;
    const table = this.options.table;
    if (metadata) this.#write(event.metadataLineAs(type, metadata));
    else this.#write(table ? event.lineAs(type, apiVersion, table, this.#takeTableHeaders()) : event.lineAs(type, apiVersion));
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

  /** Sends a synthetic ADDED for an existing object (watch from '' / '0', initial events). */
  sendExisting(stored: StoredObject): void {
    this.#write(eventLine('ADDED', this.#objectJson(stored.object, () => jsonAtApiVersion(stored, this.options.apiVersion))));
  }

  /**
   * Sends a BOOKMARK at `rv`, optionally annotated (`k8s.io/initial-events-end`). A Table watch
   * gets the bookmark object as a one-row Table, as kube-apiserver transforms every event object.
   */
  sendBookmark(rv: number, annotations?: Record<string, string>): void {
    const metadata: Record<string, unknown> = { resourceVersion: String(Math.max(rv, this.options.sinceRv)) };
    if (annotations) metadata.annotations = annotations;
    // A bookmark's metadata has no name: it is not a real object.
    const bookmark = { kind: this.options.kind, apiVersion: this.options.apiVersion, metadata } as unknown as KubeObject;
    this.#write(eventLine('BOOKMARK', this.#objectJson(bookmark, () => JSON.stringify(bookmark))));
  }

  /** Sends an ERROR event with a Status object. */
  sendError(status: object): void {
    this.#write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
  }

  /** Sends `line` as it is, plus a newline (fault injection: garbage in the stream). */
  sendRaw(line: string): void {
    this.#write(`${line}\n`);
  }

  /** Queues a line for the end of the turn. */
  #write(line: string | Buffer): void {
    if (this.#closed) return;
    const bytes = typeof line === 'string' ? Buffer.from(line, 'utf8') : line;
    if (this.#pendingBytes + bytes.length + this.#res.writableLength > this.#limit) {
      this.#endSlow();
      return;
    }
    if (this.#pending.push(bytes) === 1) flushAtEndOfTurn(this);
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes >= flushNowBytes) this.flush();
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
