/**
 * Whether a Pod fits a Node, filter by filter in the scheduler's order (NodeUnschedulable,
 * TaintToleration, NodeAffinity, NodeResourcesFit), and the message of an unschedulable Pod in
 * kube-scheduler's shape: `0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated
 * taint {node.kubernetes.io/unreachable: }. preemption: 0/3 nodes are available: ...`.
 */
import type { KubeObject } from '@kubeloop/resource';
import { matchesNodeSelection } from './node-affinity.js';
import type { PodPlacement } from './node-affinity.js';
import { podRequests } from './pod-requests.js';
import type { PodSpecForScheduling } from './pod-requests.js';
import { schedulerUnits } from './quantities.js';
import { untoleratedTaint } from './tolerations.js';
import type { Taint, Toleration } from './tolerations.js';

/** Why a Pod does not fit one Node. */
export interface NodeMisfit {
  readonly reasons: readonly string[];
  /** Whether evicting lower-priority Pods could make room (only resources can). */
  readonly preemptionMightHelp: boolean;
}

/** The Pod spec fields the filters read. */
export type SchedulingSpec = PodSpecForScheduling & PodPlacement & { readonly tolerations?: readonly Toleration[] };

/** What is already requested on a Node by the Pods bound to it, by resource (`pods` counts them). */
export type NodeUsage = ReadonlyMap<string, number>;

/** Undefined when the Pod fits the Node, else why not. */
export function misfit(spec: SchedulingSpec, node: KubeObject, usage: NodeUsage): NodeMisfit | undefined {
  const nodeSpec = (node.spec ?? {}) as { unschedulable?: boolean; taints?: Taint[] };
  if (nodeSpec.unschedulable === true) return { reasons: ['node(s) were unschedulable'], preemptionMightHelp: false };
  const taint = untoleratedTaint(nodeSpec.taints ?? [], spec.tolerations ?? []);
  if (taint) return { reasons: [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`], preemptionMightHelp: false };
  if (!matchesNodeSelection(spec, node)) return { reasons: ["node(s) didn't match Pod's node affinity/selector"], preemptionMightHelp: false };
  const allocatable: Record<string, string> = (node.status as { allocatable?: Record<string, string> } | undefined)?.allocatable ?? {};
  const reasons: string[] = [];
  if ((usage.get('pods') ?? 0) + 1 > schedulerUnits('pods', allocatable.pods ?? '110')) reasons.push('Too many pods');
  for (const [resource, requested] of podRequests(spec)) {
    if (requested === 0 || resource === 'pods') continue;
    const available = schedulerUnits(resource, allocatable[resource] ?? '0') - (usage.get(resource) ?? 0);
    if (requested > available) reasons.push(`Insufficient ${resource}`);
  }
  return reasons.length > 0 ? { reasons, preemptionMightHelp: true } : undefined;
}

function histogram(entries: Iterable<string>): string {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entry, (counts.get(entry) ?? 0) + 1);
  return [...counts]
    .map(([reason, count]) => `${count} ${reason}`)
    .sort()
    .join(', ');
}

/** The `PodScheduled` message of a Pod that fits no Node. */
export function unschedulableMessage(nodeCount: number, misfits: readonly NodeMisfit[]): string {
  if (nodeCount === 0) return 'no nodes available to schedule pods';
  const fit = histogram(misfits.flatMap((m) => m.reasons));
  const preemption = histogram(misfits.map((m) => (m.preemptionMightHelp ? 'No preemption victims found for incoming pod' : 'Preemption is not helpful for scheduling')));
  return `0/${nodeCount} nodes are available: ${fit}. preemption: 0/${nodeCount} nodes are available: ${preemption}.`;
}
