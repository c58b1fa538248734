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
      this.#write(apiVersion === event.current.object.apiVersion ? event.line() : event.lineAs(event.type, apiVersion));
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
    this.#write(event.lineAs(type, apiVersion));
  }

  /** Sends a synthetic ADDED for an existing object (watch from '' / '0', initial events). */
  sendExisting(stored: StoredObject): void {
    this.#write(eventLine('ADDED', jsonAtApiVersion(stored, this.options.apiVersion)));
  }

  /** Sends a BOOKMARK at `rv`, optionally annotated (`k8s.io/initial-events-end`). */
  sendBookmark(rv: number, annotations?: Record<string, string>): void {
    const metadata: Record<string, unknown> = { resourceVersion: String(Math.max(rv, this.options.sinceRv)) };
    if (annotations) metadata.annotations = annotations;
    this.#write(`{"type":"BOOKMARK","object":${JSON.stringify({ kind: this.options.kind, apiVersion: this.options.apiVersion, metadata })}}\n`);
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
