/** What a controller tells the status page: its informers, its queue and its recent handler calls (plain data, JSON-ready). */
import type { LastError, ObjectCalls } from './handler-call-log.js';

/** One informer of a controller. */
export interface InformerStatus {
  /** The registration key (the kind, or `group/version/Kind`). */
  readonly kind: string;
  /** `primary` (its events go to the handlers), or `owns` / `watches` (a secondary that resyncs primaries). */
  readonly role: 'primary' | 'owns' | 'watches';
  readonly synced: boolean;
  /** Objects in its cache. */
  readonly objects: number;
  /** Clock milliseconds of the last watch event or bookmark; undefined when none yet or not known (an informer with metrics of its own). */
  readonly lastEventAt?: number | undefined;
  /** Watch connections opened (first and reconnects); undefined when not known. */
  readonly watchConnects?: number | undefined;
  /** Times it listed or watched again (a watch that ended, a failed request, an expired version); undefined when not known. */
  readonly restarts?: number | undefined;
}

/** A controller's work queue. */
export interface QueueStatus {
  /** Items queued and not started. */
  readonly depth: number;
  /** Items being processed. */
  readonly inFlight: number;
  /** Retries waiting for their time. */
  readonly pendingRetries: number;
  /** The item that has waited longest in the queue, if any. */
  readonly longestWaiting?: { readonly kind: string; readonly key: string; readonly waitingMs: number } | undefined;
}

/** A controller's handler calls in all. */
export interface CallTotals {
  readonly calls: number;
  readonly errors: number;
  readonly lastError?: LastError | undefined;
}

/** One controller, as the status page shows it. */
export interface ControllerStatus {
  readonly name: string;
  /** The controller clock's milliseconds when this was taken (the reference of every time in it). */
  readonly now: number;
  /** True once its caches have synced and its workers run. */
  readonly running: boolean;
  readonly informers: readonly InformerStatus[];
  readonly queue: QueueStatus;
  readonly totals: CallTotals;
  /** Recently called objects, most recent first, each with its last calls. */
  readonly objects: readonly ObjectCalls[];
}

/** Every controller of an operator. */
export interface OperatorStatus {
  readonly controllers: readonly ControllerStatus[];
}
