import { KubeloopError } from '@kubeloop/resource';
import type { StaticMetadata } from '@kubeloop/resource';
import type { ReconcileResult } from './handlers/reconciler.js';

/** A nil/undefined object reached a handler path (grafana-app-sdk `ErrNilObject`). */
export const ErrNilObject = new KubeloopError('ErrNilObject', 'object cannot be nil');

/** An informer was added twice (grafana-app-sdk `ErrInformerAlreadyAdded`). */
export const ErrInformerAlreadyAdded = new KubeloopError('ErrInformerAlreadyAdded', 'informer for resource kind already added');

/** A configuration error: a nil argument, an empty kind, an invalid option. Thrown at once, never retried. */
export class InvalidArgumentError extends KubeloopError {
  constructor(message: string) {
    super('InvalidArgumentError', message);
  }
}

/**
 * A typed handler received an object it cannot treat as its type (grafana-app-sdk `CannotCastError`).
 * Go's `Name` field is `objectName` here: `name` stays the error's class name, as for every Error.
 */
export class CannotCastError extends KubeloopError {
  readonly namespace: string;
  readonly objectName: string;
  readonly group: string;
  readonly kind: string;

  constructor(meta: Pick<StaticMetadata, 'namespace' | 'name' | 'group' | 'kind'>) {
    super('CannotCastError', `cannot cast ${meta.group}:${meta.kind} (${meta.namespace}/${meta.name}) into type`);
    this.namespace = meta.namespace;
    this.objectName = meta.name;
    this.group = meta.group;
    this.kind = meta.kind;
  }
}

/** Adding or removing a finalizer failed; `cause` holds the API error. */
export class FinalizerOperationError extends KubeloopError {
  readonly finalizer: string;
  readonly operation: 'add' | 'remove';

  constructor(operation: 'add' | 'remove', finalizer: string, message: string, options?: { cause?: unknown }) {
    super('FinalizerOperationError', message, options);
    this.operation = operation;
    this.finalizer = finalizer;
  }
}

/**
 * Wrap an error in a TerminalError to say "do not retry": the controller reports and counts it,
 * and drops the event (controller-runtime's `reconcile.TerminalError`).
 */
export class TerminalError extends KubeloopError {
  constructor(cause: unknown) {
    super('TerminalError', `terminal error: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * A reconcile that failed but still has a result: Go's `return ReconcileResult{...}, err`.
 * Throw it from `reconcile()` to keep `state` for the retries of this event and/or to requeue after
 * `requeueAfter` (which then wins over the retry policy). The controller reports and retries `cause`.
 */
export class ReconcileError extends KubeloopError {
  readonly result: ReconcileResult;

  constructor(cause: unknown, result: ReconcileResult) {
    super('ReconcileError', cause instanceof Error ? cause.message : String(cause), { cause });
    this.result = result;
  }
}

/**
 * A handler call did not finish within the controller's `handlerTimeoutMs`: its signal was aborted
 * with this error, and the call counts as failed (reported, counted, retried per policy).
 */
export class HandlerTimeoutError extends KubeloopError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super('HandlerTimeoutError', `handler did not finish within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A controller's informers did not all sync within its `cacheSyncTimeoutMs` (controller-runtime's
 * "timed out waiting for cache to be synced"): `run()` stops everything and rejects with it, so the
 * process exits and its pod is restarted rather than reconciling against a half-filled cache.
 */
export class CacheSyncTimeoutError extends KubeloopError {
  readonly timeoutMs: number;
  /** The kinds whose informers had not synced. */
  readonly unsyncedKinds: readonly string[];

  constructor(controller: string, timeoutMs: number, unsyncedKinds: readonly string[]) {
    super('CacheSyncTimeoutError', `${controller}: timed out after ${timeoutMs} ms waiting for caches to sync (${unsyncedKinds.join(', ') || 'none left'})`);
    this.timeoutMs = timeoutMs;
    this.unsyncedKinds = unsyncedKinds;
  }
}

function hasCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && ((err as { code?: unknown }).code === code || (err as { name?: unknown }).name === code);
}

/** True for a {@link CannotCastError} (works across installed copies). */
export const isCannotCastError = (err: unknown): err is CannotCastError => hasCode(err, 'CannotCastError');
/** True for a {@link FinalizerOperationError}. */
export const isFinalizerOperationError = (err: unknown): err is FinalizerOperationError => hasCode(err, 'FinalizerOperationError');
/**
 * True when `err` or an error in its `cause` chain is a {@link TerminalError} (Go's
 * `errors.Is(err, reconcile.TerminalError(nil))`, which unwraps): wrapping a terminal error in
 * another error with `{ cause }` keeps it terminal.
 */
export const isTerminalError = (err: unknown): boolean => someInCauseChain(err, (e) => hasCode(e, 'TerminalError'));
/** True for a {@link ReconcileError}. */
export const isReconcileError = (err: unknown): err is ReconcileError => hasCode(err, 'ReconcileError');
/** True for an {@link InvalidArgumentError}. */
export const isInvalidArgumentError = (err: unknown): err is InvalidArgumentError => hasCode(err, 'InvalidArgumentError');
/** True for a {@link HandlerTimeoutError}. */
export const isHandlerTimeoutError = (err: unknown): err is HandlerTimeoutError => hasCode(err, 'HandlerTimeoutError');
/** True for a {@link CacheSyncTimeoutError}. */
export const isCacheSyncTimeoutError = (err: unknown): err is CacheSyncTimeoutError => hasCode(err, 'CacheSyncTimeoutError');
/** True for {@link ErrNilObject}. */
export const isNilObjectError = (err: unknown): boolean => hasCode(err, 'ErrNilObject');

/** How deep {@link isAbortError} follows `cause` (a guard against cycles and absurd chains). */
const MAX_CAUSE_DEPTH = 16;

/**
 * True when `err`, or any error in its `cause` chain, is an abort: an error named `AbortError`
 * (DOMException, `AbortSignal.abort()`), Node's `code: 'ABORT_ERR'`, a @kubeloop/resource
 * `NetworkError` with `errno: 'ABORT_ERR'` (a request aborted by its signal), or `reason` itself
 * when given (an `AbortSignal`'s `reason`, whatever the caller aborted with).
 *
 * The chain matters because an abort rarely surfaces bare: a finalizer patch aborted by the
 * controller's shutdown signal arrives as a `FinalizerOperationError` (cause: the aborted request),
 * possibly inside a `ReconcileError`.
 */
export function isAbortError(err: unknown, reason?: unknown): boolean {
  return someInCauseChain(err, (e) => {
    if (reason !== undefined && e === reason) return true;
    if (typeof e !== 'object' || e === null) return false;
    const fields = e as { name?: unknown; code?: unknown; errno?: unknown };
    return fields.name === 'AbortError' || fields.code === 'ABORT_ERR' || fields.errno === 'ABORT_ERR';
  });
}

/** True when `test` holds for `err` or an error of its `cause` chain (at most {@link MAX_CAUSE_DEPTH} links). */
function someInCauseChain(err: unknown, test: (e: unknown) => boolean): boolean {
  let current = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current != null; depth++) {
    if (test(current)) return true;
    if (typeof current !== 'object') return false;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The reason a handler call's signal aborts when its object's slot moves to another replica of a
 * shard ring and the call did not end within the hand-over timeout.
 */
export class HandedOverError extends KubeloopError {
  constructor(message = 'the object moved to another replica of the shard ring: this call must stop') {
    super('HandedOverError', message);
  }
}
