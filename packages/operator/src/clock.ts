/** The injectable clock, shared with the embedded API server's simulation: defined in @kubeloop/resource. */
export { RealClock, VirtualClock, flushMicrotasks, realClock } from '@kubeloop/resource';
export type { Clock, Timer } from '@kubeloop/resource';
