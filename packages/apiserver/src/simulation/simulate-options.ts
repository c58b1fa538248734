/** What `startApiServer({ simulate })` turns on: the cluster around an operator (see `simulation.ts`). */
import type { Clock } from '@kubeloop/resource';

/** Options of the simulated kubelet. */
export interface SimulatedKubeletOptions {
  /** How many Nodes (`node-1`...`node-N`, Ready, with {@link SimulatedKubeletOptions.nodeCapacity}). Default: 3. */
  readonly nodes?: number;
  /** Each node's capacity and allocatable. Default: `{ cpu: '4', memory: '16Gi', pods: '110' }`. */
  readonly nodeCapacity?: Readonly<Record<string, string>>;
  /** Time from a Pod's binding to its containers running (image pull and start). Default: 1,000 ms. */
  readonly podStartMs?: number;
  /** Time a Job's Pod runs before it succeeds. Default: 2,000 ms. */
  readonly jobPodRunMs?: number;
}

/**
 * The cluster simulation: controllers of kube-controller-manager and a kubelet per simulated Node,
 * running inside the server on its clock. Off by default on `startApiServer` (the server then
 * behaves like envtest: it stores, validates and collects garbage, nothing more).
 */
export interface SimulateOptions {
  /**
   * The workload controllers (Deployment, ReplicaSet, ReplicationController, StatefulSet,
   * DaemonSet, Job, CronJob, EndpointSlice/Endpoints, ServiceAccount and root CA publishing).
   * Default: true.
   */
  readonly controllers?: boolean;
  /** The simulated kubelet and its Nodes; false: no Nodes, Pods stay Pending. Default: true (3 Nodes). */
  readonly kubelet?: boolean | SimulatedKubeletOptions;
  /**
   * The time the simulation runs on: delays (Pod start, readiness, grace periods, CronJob
   * schedules) are timers on it. Pass a `VirtualClock` (from @kubeloop/resource, also exported by
   * @kubeloop/operator) to move simulated time by hand in a test. Default: real time.
   */
  readonly clock?: Clock;
}

/** {@link SimulateOptions} with every default applied. */
export interface ResolvedSimulation {
  readonly controllers: boolean;
  readonly kubelet: Required<SimulatedKubeletOptions> | undefined;
  readonly clock: Clock | undefined;
}

const defaultKubelet: Required<SimulatedKubeletOptions> = {
  nodes: 3,
  nodeCapacity: { cpu: '4', memory: '16Gi', pods: '110' },
  podStartMs: 1_000,
  jobPodRunMs: 2_000,
};

/** Applies the defaults; undefined when the simulation is off. Throws a RangeError for a bad value. */
export function resolveSimulation(simulate: boolean | SimulateOptions | undefined): ResolvedSimulation | undefined {
  if (simulate === undefined || simulate === false) return undefined;
  const options: SimulateOptions = simulate === true ? {} : simulate;
  const kubeletOption = options.kubelet ?? true;
  const kubelet = kubeletOption === false ? undefined : { ...defaultKubelet, ...(kubeletOption === true ? {} : kubeletOption) };
  if (kubelet) {
    if (!Number.isInteger(kubelet.nodes) || kubelet.nodes < 0) throw new RangeError(`simulate.kubelet.nodes must be a non-negative integer, got ${kubelet.nodes}`);
    for (const name of ['podStartMs', 'jobPodRunMs'] as const) {
      if (!(kubelet[name] >= 0)) throw new RangeError(`simulate.kubelet.${name} must be a non-negative number, got ${kubelet[name]}`);
    }
  }
  return { controllers: options.controllers ?? true, kubelet, clock: options.clock };
}
