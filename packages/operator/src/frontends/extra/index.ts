// @kubeloop/operator/extra: operator-sdk-extra's standard reconcilers (external resources, and phases
// over child Kubernetes resources) on the level-based `reconcile` front-end.
// Named exports only; types exported with `export type`.

export type { Diff, K8sDiff } from './diff.js';
export { isEmptyDiff } from './diff.js';
export type { Reconciler, K8sReconciler, K8sPhaseReconciler, K8sDiffResult, ReconcileData, MaybePromise } from './reconciler.js';
export { PhaseError, isPhaseError } from './phase-error.js';
export type { StdReconcilerOptions } from './std-reconciler.js';
export { StdReconciler, newStdReconciler } from './std-reconciler.js';
export type { StdK8sReconcilerOptions } from './std-k8s-reconciler.js';
export { StdK8sReconciler, newStdK8sReconciler } from './std-k8s-reconciler.js';
export type { Request, Result } from '../reconcile/index.js';
export type { EventRecorder, EventType, EventClient, ClientEventRecorderOptions } from '../../handlers/event-recorder.js';
export { ClientEventRecorder, noopEventRecorder } from '../../handlers/event-recorder.js';
