/**
 * The recent handler calls of a controller, per object, for the status page: "why did my object not
 * become Ready?" answered by looking. Bounded: the last `callsPerObject` calls (a ring) of the last
 * `maxObjects` objects that had a call (least recently called dropped first), each error message cut
 * to `maxErrorLength` characters. With the defaults (20 calls x 500 objects, 300 characters) that is at
 * most 10,000 records of a few hundred bytes each: a few MB per controller in the worst case.
 * Recording one call costs two Map lookups and a few writes into preallocated arrays, nothing that outlives
 * the call (the first version kept an object per call: +3 to 6 us of CPU per event through an
 * InformerController, mostly garbage collection, with 1,000 objects cycling through the 500 kept; now
 * within the noise of a loaded 2-core machine, about +0.2 to 0.5 us).
 */
import { InvalidArgumentError } from '../errors.js';

/** How a handler call ended. */
export type HandlerCallResult = 'ok' | 'error' | 'requeue';

/** One handler call, as the status page shows it. */
export interface HandlerCall {
  /** When it ended: the controller clock's milliseconds (epoch milliseconds with the real clock). */
  readonly at: number;
  /** Which handler type. */
  readonly handler: 'watcher' | 'reconciler';
  /** What it was asked: a watcher's informer action (CREATE, UPDATE, DELETE), a reconciler's (Created, Updated, Deleted, Resynced). */
  readonly action: string;
  /** 0 for the first call for an event, n for its n-th retry. */
  readonly attempt: number;
  readonly result: HandlerCallResult;
  readonly durationMs: number;
  /** The error's message (cut to `maxErrorLength`), when it failed. */
  readonly error?: string | undefined;
  /** The delay of the retry or requeue scheduled by this call, when one was. */
  readonly retryInMs?: number | undefined;
}

/** The recent calls of one object, newest first. */
export interface ObjectCalls {
  readonly kind: string;
  /** `namespace/name`, or `name` for a cluster-scoped object. */
  readonly key: string;
  readonly calls: readonly HandlerCall[];
}

/** The last failed call of a controller. */
export interface LastError {
  readonly at: number;
  readonly kind: string;
  readonly key: string;
  readonly message: string;
}

/** Options of {@link HandlerCallLog}. */
export interface HandlerCallLogOptions {
  /** Objects whose calls are kept (least recently called dropped first). Default: 500. */
  maxObjects?: number | undefined;
  /** Calls kept per object (oldest dropped first). Default: 20. */
  callsPerObject?: number | undefined;
  /** Characters of an error message kept. Default: 300. */
  maxErrorLength?: number | undefined;
}

/**
 * The last calls of one object, in a ring of preallocated columns (no object per call: recording is a few
 * array writes, and nothing per call outlives it for the garbage collector to move). Also a node of the
 * log's recency list; an evicted ring is reused for the next new object.
 */
class CallRing {
  /** More recently called neighbour. */
  newer: CallRing | undefined;
  /** Less recently called neighbour. */
  older: CallRing | undefined;
  private count = 0;
  private write = 0;
  private readonly at: Float64Array;
  private readonly duration: Float64Array;
  /** NaN: no retry scheduled. */
  private readonly retry: Float64Array;
  private readonly attempt: Int32Array;
  private readonly handler: HandlerCall['handler'][];
  private readonly action: string[];
  private readonly result: HandlerCallResult[];
  private readonly error: (string | undefined)[];

  constructor(
    public kind: string,
    public key: string,
    private readonly capacity: number,
  ) {
    this.at = new Float64Array(capacity);
    this.duration = new Float64Array(capacity);
    this.retry = new Float64Array(capacity);
    this.attempt = new Int32Array(capacity);
    this.handler = new Array<HandlerCall['handler']>(capacity).fill('reconciler');
    this.action = new Array<string>(capacity).fill('');
    this.result = new Array<HandlerCallResult>(capacity).fill('ok');
    this.error = new Array<string | undefined>(capacity).fill(undefined);
  }

  /** Makes it the ring of another object, empty. */
  reuse(kind: string, key: string): void {
    this.kind = kind;
    this.key = key;
    this.count = 0;
    this.write = 0;
    this.error.fill(undefined);
  }

  push(call: HandlerCallInput, error: string | undefined): void {
    const i = this.write;
    this.at[i] = call.at;
    this.duration[i] = call.durationMs;
    this.retry[i] = call.retryInMs ?? Number.NaN;
    this.attempt[i] = call.attempt;
    this.handler[i] = call.handler;
    this.action[i] = call.action;
    this.result[i] = call.result;
    this.error[i] = error;
    this.write = (i + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  newestFirst(): HandlerCall[] {
    const out: HandlerCall[] = [];
    for (let n = 1; n <= this.count; n++) {
      const i = (this.write - n + this.capacity) % this.capacity;
      const retry = this.retry[i]!;
      out.push({
        at: this.at[i]!,
        handler: this.handler[i]!,
        action: this.action[i]!,
        attempt: this.attempt[i]!,
        result: this.result[i]!,
        durationMs: this.duration[i]!,
        error: this.error[i],
        retryInMs: Number.isNaN(retry) ? undefined : retry,
      });
    }
    return out;
  }
}

/** What a caller records of one call (the error apart). */
export type HandlerCallInput = Omit<HandlerCall, 'error'>;

/** See the file comment. */
export class HandlerCallLog {
  readonly maxObjects: number;
  readonly callsPerObject: number;
  readonly maxErrorLength: number;
  /** kind -> key -> ring: no key string is built per call. */
  private readonly rings = new Map<string, Map<string, CallRing>>();
  private size = 0;
  /** The most and the least recently called objects' rings. */
  private newest: CallRing | undefined;
  private oldest: CallRing | undefined;
  private total = 0;
  private errors = 0;
  private last: LastError | undefined;

  constructor(options: HandlerCallLogOptions = {}) {
    this.maxObjects = positive('maxObjects', options.maxObjects ?? 500);
    this.callsPerObject = positive('callsPerObject', options.callsPerObject ?? 20);
    this.maxErrorLength = positive('maxErrorLength', options.maxErrorLength ?? 300);
  }

  /** Records a call of a handler about the object `key` of `kind`; `error` is what it threw, if it failed. */
  record(kind: string, key: string, call: HandlerCallInput, error?: unknown): void {
    this.total++;
    let message: string | undefined;
    if (call.result === 'error') {
      this.errors++;
      message = this.messageOf(error);
      this.last = { at: call.at, kind, key, message };
    }
    let byKey = this.rings.get(kind);
    if (byKey === undefined) {
      byKey = new Map();
      this.rings.set(kind, byKey);
    }
    let ring = byKey.get(key);
    if (ring === undefined) {
      ring = this.newRing(kind, key);
      byKey.set(key, ring);
    } else {
      this.unlink(ring);
    }
    this.linkNewest(ring);
    ring.push(call, message);
  }

  /** The objects, most recently called first, each with its calls newest first. */
  objects(): ObjectCalls[] {
    const out: ObjectCalls[] = [];
    for (let ring = this.newest; ring !== undefined; ring = ring.older) out.push({ kind: ring.kind, key: ring.key, calls: ring.newestFirst() });
    return out;
  }

  /** Calls recorded since start (also those no longer kept). */
  get totalCalls(): number {
    return this.total;
  }

  /** Failed calls recorded since start. */
  get failedCalls(): number {
    return this.errors;
  }

  /** The last failed call, if any. */
  get lastError(): LastError | undefined {
    return this.last;
  }

  /** A ring for a new object: the least recently called object's, once there are `maxObjects`. */
  private newRing(kind: string, key: string): CallRing {
    if (this.size < this.maxObjects || this.oldest === undefined) {
      this.size++;
      return new CallRing(kind, key, this.callsPerObject);
    }
    const ring = this.oldest;
    this.unlink(ring);
    const byKey = this.rings.get(ring.kind);
    byKey?.delete(ring.key);
    if (byKey?.size === 0) this.rings.delete(ring.kind);
    ring.reuse(kind, key);
    return ring;
  }

  private unlink(ring: CallRing): void {
    if (ring.newer !== undefined) ring.newer.older = ring.older;
    else this.newest = ring.older;
    if (ring.older !== undefined) ring.older.newer = ring.newer;
    else this.oldest = ring.newer;
    ring.newer = undefined;
    ring.older = undefined;
  }

  private linkNewest(ring: CallRing): void {
    ring.older = this.newest;
    if (this.newest !== undefined) this.newest.newer = ring;
    this.newest = ring;
    this.oldest ??= ring;
  }

  private messageOf(error: unknown): string {
    let text: string;
    try {
      text = error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
    } catch {
      text = 'an error that cannot be shown';
    }
    return text.length > this.maxErrorLength ? `${text.slice(0, this.maxErrorLength - 1)}…` : text;
  }
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError(`${name} must be an integer >= 1, got ${value}`);
  return value;
}
