/**
 * One open watch connection: filters changes for its client and writes one compact JSON line
 * per event, each with a single `res.write` (one HTTP chunk, like kube-apiserver).
 *
 * Selector semantics (as the real watch cache): an object that enters the selector is ADDED
 * for this watcher, one that leaves it is DELETED (previous content, the change's
 * resourceVersion), and changes outside the selector are not seen at all.
 */
import type { ServerResponse } from 'node:http';
import type { FieldSelector, KubeObject, LabelSelector } from '@kubeloop/resource';
import { eventLine, jsonAtApiVersion } from './change-event.js';
import type { ChangeEvent, ChangeType, StoredObject } from './change-event.js';
import { singleObjectTableJson } from './table/table-encoding.js';
import type { TableFormat } from './table/table-encoding.js';

/** A client buffering more than this is cut off, as the real server drops watchers that do not read. */
const maxBufferedBytes = 64 * 1024 * 1024;

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

  constructor(res: ServerResponse, options: WatchStreamOptions) {
    this.#res = res;
    this.options = options;
    this.#filtered = options.namespace !== undefined || options.labelSelector !== undefined || options.fieldSelector !== undefined;
    // In Node 20 the response's 'close' is what reliably reports a client going away.
    res.on('close', () => this.#markClosed());
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
    if (!this.#filtered) {
      if (this.options.table) this.#write(event.lineAs(event.type, apiVersion, this.options.table, this.#takeTableHeaders()));
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
    this.#write(table ? event.lineAs(type, apiVersion, table, this.#takeTableHeaders()) : event.lineAs(type, apiVersion));
  }

  /** True for the stream's first Table event (the one that carries the column definitions). */
  #takeTableHeaders(): boolean {
    const headers = this.#tableHeaders;
    this.#tableHeaders = false;
    return headers;
  }

  /** The event object's JSON: the object itself, or as a one-row Table. */
  #objectJson(object: KubeObject, json: () => string): string {
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

  #write(line: string | Buffer): void {
    if (this.#closed) return;
    this.lastWriteAt = Date.now();
    this.#res.write(line);
    if (this.#res.writableLength > maxBufferedBytes) this.destroy(false);
  }

  /** Ends the stream cleanly (timeout, server stop, type removed). */
  end(): void {
    if (this.#closed) return;
    this.#res.end();
    this.#markClosed();
  }

  /** Cuts the connection; with `midLine`, after writing half of an event line (fault injection). */
  destroy(midLine: boolean): void {
    if (this.#closed) return;
    if (midLine) this.#res.write('{"type":"MODIFIED","object":{"kind":"');
    const socket = this.#res.socket;
    // Give the half line a chance to leave before the reset, so clients see a torn line.
    if (midLine && socket) setImmediate(() => socket.destroy());
    else if (socket) socket.destroy();
    else this.#res.destroy();
    this.#markClosed();
  }
}
