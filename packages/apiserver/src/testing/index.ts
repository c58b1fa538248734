// @kubeloop/apiserver/testing: the test kit for operators. Named exports only; types exported with `export type`.
// Nothing here imports a test runner: it works under node:test, Vitest and Jest.
export { startTestEnv } from './test-env.js';
export type { TestEnv, TestEnvOptions } from './test-env.js';
export { eventually, waitFor } from './eventually.js';
export type { EventuallyOptions } from './eventually.js';
export { runController } from './run-controller.js';
export type { RunnableController, StopController } from './run-controller.js';
export type { Faults, FailNextRule, FaultVerb } from '../faults.js';
