/**
 * What the simulated Nodes, scheduler, kubelet and node lifecycle controller share: the settings,
 * the Node names, the served types they write, a writer per component (managedFields read as on a
 * cluster), the workload faults and the kubelet's record of each Pod it runs.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { StoredObject } from '../../storage/change-event.js';
import { leaseType, namespaceType } from '../../types/builtin-resources.js';
import { storeKeyOf } from '../../types/resource-type.js';
import type { ResourceType } from '../../types/resource-type.js';
import type { SimulatedKubeletOptions } from '../simulate-options.js';
import type { SimulatedWrites } from '../simulated-writes.js';
import { builtinType } from '../simulation-context.js';
import type { SimulationContext } from '../simulation-context.js';
import type { PodRun } from './pod-run.js';
import type { WorkloadFaults } from './workload-faults.js';

/** The namespace of the Nodes' heartbeat Leases. */
export const nodeLeaseNamespace = 'kube-node-lease';

/** An RFC 3339 time of `ms` in seconds, as `metav1.Time`. */
export function timeText(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** An RFC 3339 time of `ms` in microseconds, as `metav1.MicroTime`. */
export function microTimeText(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The simulated Nodes' names: `node-1`...`node-N`. */
export function simulatedNodeNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `node-${i + 1}`);
}

/** The Pod fields the simulation reads. */
export interface PodShape {
  readonly nodeName?: string;
  readonly schedulerName?: string;
  readonly restartPolicy?: string;
  readonly terminationGracePeriodSeconds?: number;
}

/** A Pod's spec fields (an empty object when it has none). */
export function podSpec(pod: KubeObject): PodShape {
  return pod.spec ?? {};
}

/** A Pod's `status.phase`. */
export function podPhase(pod: KubeObject): string | undefined {
  return (pod.status as { phase?: string } | undefined)?.phase;
}

/** Whether the Pod has finished (Succeeded or Failed): it holds no resources and is deleted at once. */
export function podFinished(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase === 'Succeeded' || phase === 'Failed';
}

/** The shared state of the simulated kubelet and its companions. */
export class SimulatedCluster {
  readonly ctx: SimulationContext;
  readonly settings: Required<SimulatedKubeletOptions>;
  readonly podType: ResourceType;
  readonly nodeType: ResourceType;
  readonly leaseType = leaseType;
  readonly namespaceType = namespaceType;
  /** `node-1`...`node-N`. */
  readonly nodeNames: readonly string[];
  readonly faults: WorkloadFaults;
  readonly kubeletWrites: SimulatedWrites;
  readonly schedulerWrites: SimulatedWrites;
  /** The node lifecycle and taint eviction controllers write as kube-controller-manager. */
  readonly controllerWrites: SimulatedWrites;
  /** The kubelet's record of each Pod it runs, by uid. */
  readonly runs = new Map<string, PodRun>();

  constructor(ctx: SimulationContext, settings: Required<SimulatedKubeletOptions>) {
    this.ctx = ctx;
    this.settings = settings;
    this.podType = builtinType(ctx, 'v1', 'Pod');
    this.nodeType = builtinType(ctx, 'v1', 'Node');
    this.nodeNames = simulatedNodeNames(settings.nodes);
    this.faults = ctx.workloadFaults;
    this.kubeletWrites = ctx.writes.as('kubelet');
    this.schedulerWrites = ctx.writes.as('kube-scheduler');
    this.controllerWrites = ctx.writes;
  }

  /** The position (1-based) of a simulated Node, or undefined for a Node the simulation does not run. */
  nodeIndex(name: string): number | undefined {
    const match = /^node-(\d+)$/.exec(name);
    const index = match ? Number(match[1]) : 0;
    return index >= 1 && index <= this.nodeNames.length ? index : undefined;
  }

  node(name: string): StoredObject | undefined {
    return this.ctx.store.get(storeKeyOf(this.nodeType), name);
  }

  nodes(): StoredObject[] {
    return [...this.ctx.store.values(storeKeyOf(this.nodeType))];
  }

  pod(key: string): StoredObject | undefined {
    return this.ctx.store.get(storeKeyOf(this.podType), key);
  }

  pods(): Iterable<StoredObject> {
    return this.ctx.store.values(storeKeyOf(this.podType));
  }

  /** The Pods bound to a Node. */
  podsOn(nodeName: string): StoredObject[] {
    return [...this.pods()].filter((stored) => podSpec(stored.object).nodeName === nodeName);
  }

  now(): number {
    return this.ctx.clock.now();
  }
}
