// @kubeloop/apiserver/testing: the test kit for operators. Named exports only; types exported with `export type`.
// Nothing here imports a test runner: it works under node:test, Vitest and Jest.
export { startTestEnv } from './test-env.js';
export type { TestEnv, TestEnvOptions } from './test-env.js';
export { eventually, waitFor } from './eventually.js';
export type { EventuallyOptions } from './eventually.js';
export { runController } from './run-controller.js';
export type { RunnableController, StopController } from './run-controller.js';
export { describeFault, describeFaultSchedule, faultSchedule } from './fault-schedule.js';
export type { FaultKind, FaultSchedule, FaultScheduleOptions, ScheduledFault } from './fault-schedule.js';
export type { FaultStep, RunFaultScheduleOptions } from './run-fault-schedule.js';
export { ConvergenceError, isConvergenceError } from './convergence-error.js';
export { Prng } from './prng.js';
export type { Faults, FailNextRule, FaultVerb } from '../http/faults.js';
export { advanceSimulation } from './simulated-time.js';
export type { SimulatedTarget } from './simulated-time.js';
export { VirtualClock } from '@kubeloop/resource';
export type { SimulateOptions, SimulatedKubeletOptions } from '../simulation/simulate-options.js';
export type { ServerSimulation } from '../api-server.js';
