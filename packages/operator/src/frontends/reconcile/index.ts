// @kubeloop/operator/reconcile: controller-runtime's level-based reconcile API over the kubeloop core.
// Named exports only; types exported with `export type`.

export type { Request } from './request.js';
export { requestFor, requestKey, requestFromKey } from './request.js';
export type { Result } from './result.js';
export { resultIsZero, requeueAfterMs } from './result.js';
export type { Reconciler, ReconcileFunc } from './reconciler.js';
export { reconcileFunc } from './reconciler.js';
export type { ObjectReconciler, ObjectGetter } from './object-reconciler.js';
export { asReconciler } from './object-reconciler.js';
export { TerminalError, isTerminalError } from '../../errors.js';
export type { RateLimiter, BucketRateLimiterOptions, DefaultControllerRateLimiterOptions } from './rate-limiter.js';
export {
  ItemExponentialFailureRateLimiter,
  BucketRateLimiter,
  maxOfRateLimiter,
  defaultControllerRateLimiter,
  DEFAULT_BASE_DELAY_MS,
  DEFAULT_MAX_DELAY_MS,
} from './rate-limiter.js';
export type { MapFunc, WatchSource, EnqueueRequestForOwnerOptions } from './watch-source.js';
export { enqueueRequestForOwner } from './watch-source.js';
export type { ReadYourWritesOptions, WriteClient } from './read-your-writes.js';
export { DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS, DEFAULT_READ_YOUR_WRITES_RETRY_DELAY_MS } from './read-your-writes.js';
export type { ReconcileControllerOptions, EnqueueOptions } from './reconcile-controller.js';
export { DEFAULT_PRIORITY, LOW_PRIORITY } from '../../queue/ready-queue.js';
export { ReconcileController, newController } from './reconcile-controller.js';
export type { ReconcileOutcome, ReconcileMetricsOptions } from './reconcile-metrics.js';
export { ReconcileMetrics } from './reconcile-metrics.js';
