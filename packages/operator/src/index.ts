// @kubeloop/operator public API. Named exports only; types exported with `export type`.

// --- time ---
export type { Clock, Timer } from './clock.js';
export { RealClock, VirtualClock, realClock, flushMicrotasks } from './clock.js';

// --- actions, handler contracts ---
export type { ResourceAction } from './actions.js';
export {
  ReconcileAction,
  ResourceActionCreate,
  ResourceActionUpdate,
  ResourceActionDelete,
  reconcileActionFromResourceAction,
  resourceActionFromReconcileAction,
} from './actions.js';
export type { HandlerContext, ResourceWatcher } from './resource-watcher.js';
export type { Reconciler, ReconcileRequest, ReconcileResult, ReconcileState } from './reconciler.js';
export type { Informer, ReadonlyStore } from './informer.js';

// --- errors ---
export {
  ErrNilObject,
  ErrInformerAlreadyAdded,
  InvalidArgumentError,
  CannotCastError,
  FinalizerOperationError,
  TerminalError,
  isCannotCastError,
  isFinalizerOperationError,
  isTerminalError,
  isInvalidArgumentError,
  isNilObjectError,
} from './errors.js';

// --- controller core: queue, scheduler, policies, InformerController, Operator, metrics, tracing (operator-core work) ---

// --- informer, watchers, reconcilers, finalizers (operator-informer work) ---

// --- runtime: leader election, health, metrics server, shutdown (runtime work) ---
