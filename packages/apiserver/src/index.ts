// @kubeloop/apiserver public API. Named exports only; types exported with `export type`.

// --- server (apiserver-core) ---
export { startApiServer } from './api-server.js';
export type { ApiServer, ApiServerConnectionStats, ApiServerOptions } from './api-server.js';
export type { Faults, FailNextRule, FaultVerb } from './http/faults.js';
export { kubeconfigFor } from './kubeconfig.js';
export type { KubeconfigOptions } from './kubeconfig.js';
export { DataDirLockedError, WalCorruptionError, isDataDirLockedError, isWalCorruptionError } from './persistence/index.js';
