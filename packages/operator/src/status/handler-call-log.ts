/**
 * The recent handler calls of a controller, per object, for the status page: "why did my object not
 * become Ready?" answered by looking. Bounded: the last `callsPerObject` calls (a ring) of the last
 * `maxObjects` objects that had a call (least recently called dropped first), each error message cut
 * to `maxErrorLength` characters. With the defaults (20 calls x 500 objects, 300 characters) that is at
 * most 10,000 records of a few hundred bytes each: a few MB per controller in the worst case.
 * Recording one call costs two Map operations and one array write.
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

/** The last calls of one object, in a ring. */
class CallRing {
  private readonly slots: HandlerCall[] = [];
  private next = 0;

  constructor(
    readonly kind: string,
    readonly key: string,
    private readonly capacity: number,
  ) {}

  push(call: HandlerCall): void {
    if (this.slots.length < this.capacity) this.slots.push(call);
    else this.slots[this.next] = call;
    this.next = (this.next + 1) % this.capacity;
  }

  newestFirst(): HandlerCall[] {
    const n = this.slots.length;
    const out: HandlerCall[] = [];
    for (let i = 1; i <= n; i++) out.push(this.slots[(this.next - i + n) % n]!);
    return out;
  }
}

/** See the file comment. */
export class HandlerCallLog {
  readonly maxObjects: number;
  readonly callsPerObject: number;
  readonly maxErrorLength: number;
  /** Insertion order is recency: the first entry is the least recently called object. */
  private readonly rings = new Map<string, CallRing>();
  private lastId = '';
  private total = 0;
  private errors = 0;
  private last: LastError | undefined;

  constructor(options: HandlerCallLogOptions = {}) {
    this.maxObjects = positive('maxObjects', options.maxObjects ?? 500);
    this.callsPerObject = positive('callsPerObject', options.callsPerObject ?? 20);
    this.maxErrorLength = positive('maxErrorLength', options.maxErrorLength ?? 300);
  }

  /** Records a call of a handler about the object `key` of `kind`; `error` is what it threw, if it failed. */
  record(kind: string, key: string, call: Omit<HandlerCall, 'error'>, error?: unknown): void {
    this.total++;
    let entry: HandlerCall = call;
    if (call.result === 'error') {
      this.errors++;
      const message = this.messageOf(error);
      entry = { ...call, error: message };
      this.last = { at: call.at, kind, key, message };
    }
    const id = `${kind}\u0000${key}`;
    let ring = this.rings.get(id);
    if (ring === undefined) {
      ring = new CallRing(kind, key, this.callsPerObject);
      this.rings.set(id, ring);
      if (this.rings.size > this.maxObjects) this.rings.delete(this.rings.keys().next().value!);
    } else if (id !== this.lastId) {
      // Move to the end: most recently called.
      this.rings.delete(id);
      this.rings.set(id, ring);
    }
    this.lastId = id;
    ring.push(entry);
  }

  /** The objects, most recently called first, each with its calls newest first. */
  objects(): ObjectCalls[] {
    const out: ObjectCalls[] = [];
    for (const ring of this.rings.values()) out.push({ kind: ring.kind, key: ring.key, calls: ring.newestFirst() });
    return out.reverse();
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
