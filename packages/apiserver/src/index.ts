// @kubeloop/apiserver public API. Named exports only; types exported with `export type`.

// --- server (apiserver-core) ---
export { startApiServer } from './api-server.js';
export type { ApiServer, ApiServerConnectionStats, ApiServerOptions, ServerSimulation } from './api-server.js';
export type { SimulateOptions, SimulatedKubeletOptions } from './simulation/simulate-options.js';
export type { Faults, FailNextRule, FaultVerb } from './http/faults.js';
export type { CrashLoopOptions, NodeNotReadyOptions, PodSelector, SlowStartOptions, WorkloadFault } from './simulation/kubelet/workload-faults.js';
export { runMsAnnotation } from './simulation/kubelet/kubelet.js';
export { kubeconfigFor } from './kubeconfig.js';
export type { KubeconfigOptions } from './kubeconfig.js';
export { DataDirLockFailedError, DataDirLockedError, WalCorruptionError, isDataDirLockedError, isWalCorruptionError } from './persistence/index.js';
