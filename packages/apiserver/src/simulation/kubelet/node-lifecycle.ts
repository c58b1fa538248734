/**
 * kube-controller-manager's node lifecycle and taint eviction controllers, simulated: a Node whose
 * kubelet stops renewing its Lease for the grace period (50 s, `node-monitor-grace-period`) gets
 * every condition Unknown (`NodeStatusUnknown`, "Kubelet stopped posting node status."); a Node
 * whose Ready condition is False or Unknown is tainted `node.kubernetes.io/not-ready` or
 * `node.kubernetes.io/unreachable` (NoSchedule, and NoExecute with `timeAdded`), its Pods are marked
 * not Ready, and each is deleted (gracefully) once its toleration of the NoExecute taint runs out:
 * 300 s by default (see `tolerations.ts`). Taints go when the Node is Ready again.
 */
import type { KubeObject } from '@kubeloop/resource';
import { objectKeyOf } from '../../objects/object-context.js';
import type { StoredObject } from '../../storage/change-event.js';
import { storeKeyOf } from '../../types/resource-type.js';
import type { SimulatedController } from '../simulated-controller.js';
import type { NodeCondition } from './node-object.js';
import type { PodCondition } from './pod-status.js';
import { nodeLeaseNamespace, podFinished, podSpec, timeText } from './simulated-cluster.js';
import type { SimulatedCluster } from './simulated-cluster.js';
import { tolerationMs } from './tolerations.js';
import type { Taint, Toleration } from './tolerations.js';

/** How long a Node may go without a heartbeat before its conditions become Unknown. */
export const nodeMonitorGraceMs = 50_000;
/** The toleration every Pod has of the not-ready and unreachable taints unless it says otherwise. */
export const defaultTolerationSeconds = 300;
const notReadyTaint = 'node.kubernetes.io/not-ready';
const unreachableTaint = 'node.kubernetes.io/unreachable';

function readyCondition(node: KubeObject): NodeCondition | undefined {
  return (node.status as { conditions?: NodeCondition[] } | undefined)?.conditions?.find((c) => c.type === 'Ready');
}

function taintsOf(node: KubeObject): Taint[] {
  return ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []).slice();
}

/** Watches Node health; keys are Node names. */
export function nodeLifecycleController(cluster: SimulatedCluster): SimulatedController {
  const nodes = storeKeyOf(cluster.nodeType);
  const leases = storeKeyOf(cluster.leaseType);
  const pods = storeKeyOf(cluster.podType);
  return {
    name: 'node-lifecycle',
    watches: [nodes, leases, pods],
    *keysFor(storeKey, event) {
      const object = event.current.object;
      if (storeKey === nodes) yield object.metadata.name;
      else if (storeKey === leases && object.metadata.namespace === nodeLeaseNamespace) yield object.metadata.name;
      else if (storeKey === pods && event.type !== 'DELETED') {
        const nodeName = podSpec(object).nodeName;
        const node = nodeName ? cluster.node(nodeName) : undefined;
        // Only a Pod on a Node that is not Ready has anything to do with this controller.
        if (node && readyCondition(node.object)?.status !== 'True' && readyCondition(node.object) !== undefined) yield node.key;
      }
    },
    *initialKeys() {
      for (const node of cluster.nodes()) yield node.key;
    },
    sync: (name) => syncNode(cluster, name),
  };
}

async function syncNode(cluster: SimulatedCluster, name: string): Promise<number | undefined> {
  const node = cluster.node(name);
  if (!node) return undefined;
  const now = cluster.now();
  const ready = readyCondition(node.object);
  if (!ready) return undefined;
  let next: number | undefined;
  const later = (at: number): void => {
    if (next === undefined || at < next) next = at;
  };
  if (ready.status !== 'Unknown') {
    const lease = cluster.ctx.store.get(storeKeyOf(cluster.leaseType), objectKeyOf(nodeLeaseNamespace, name));
    const renewed = Date.parse((lease?.object.spec as { renewTime?: string } | undefined)?.renewTime ?? '');
    const lastSeen = Math.max(Number.isNaN(renewed) ? 0 : renewed, Date.parse(ready.lastHeartbeatTime) || 0);
    if (now - lastSeen > nodeMonitorGraceMs) {
      await markUnknown(cluster, node, now);
      return undefined;
    }
    later(lastSeen + nodeMonitorGraceMs + 1);
  }
  const taints = await setTaints(cluster, node, ready.status, now);
  if (ready.status !== 'True') {
    for (const pod of cluster.podsOn(name)) {
      if (podFinished(pod.object) || pod.object.metadata.deletionTimestamp) continue;
      await markPodNotReady(cluster, pod, now);
      const evictAt = evictionTime(taints, pod.object);
      if (evictAt === undefined) continue;
      if (now >= evictAt) await cluster.controllerWrites.delete(cluster.podType, pod);
      else later(evictAt);
    }
  }
  return next === undefined ? undefined : Math.max(0, next - now);
}

/** Every condition Unknown: the kubelet stopped posting status. */
async function markUnknown(cluster: SimulatedCluster, node: StoredObject, now: number): Promise<void> {
  await cluster.controllerWrites.updateStatus(cluster.nodeType, node, (object) => {
    const status = (object.status ??= {}) as { conditions?: NodeCondition[] };
    status.conditions = (status.conditions ?? []).map((c) =>
      c.status === 'Unknown' ? c : { ...c, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: timeText(now) },
    );
  });
}

/** The not-ready / unreachable taints the Ready status calls for, set on the Node; returns the Node's NoExecute ones. */
async function setTaints(cluster: SimulatedCluster, node: StoredObject, readyStatus: string, now: number): Promise<Taint[]> {
  const key = readyStatus === 'False' ? notReadyTaint : readyStatus === 'Unknown' ? unreachableTaint : undefined;
  const current = taintsOf(node.object);
  const kept = current.filter((t) => (t.key !== notReadyTaint && t.key !== unreachableTaint) || t.key === key);
  const wanted: Taint[] = key
    ? [
        current.find((t) => t.key === key && t.effect === 'NoSchedule') ?? { key, effect: 'NoSchedule' },
        current.find((t) => t.key === key && t.effect === 'NoExecute') ?? { key, effect: 'NoExecute', timeAdded: timeText(now) },
      ]
    : [];
  const next = [...kept.filter((t) => !wanted.includes(t)), ...wanted];
  if (next.length !== current.length || next.some((t) => !current.includes(t))) {
    await cluster.controllerWrites.update(cluster.nodeType, node, (object) => {
      const spec = (object.spec ??= {}) as { taints?: Taint[] };
      if (next.length > 0) spec.taints = next;
      else delete spec.taints;
    });
  }
  return next.filter((t) => t.effect === 'NoExecute' && (t.key === notReadyTaint || t.key === unreachableTaint));
}

/** When the Pod is evicted for the NoExecute taints (the earliest), or undefined when it tolerates them for ever. */
function evictionTime(taints: readonly Taint[], pod: KubeObject): number | undefined {
  const tolerations = ((pod.spec as { tolerations?: Toleration[] } | undefined)?.tolerations ?? []).slice();
  let at: number | undefined;
  for (const taint of taints) {
    const ms = tolerationMs(taint, tolerations, defaultTolerationSeconds);
    if (!Number.isFinite(ms)) continue;
    const evictAt = (Date.parse(taint.timeAdded ?? '') || 0) + ms;
    if (at === undefined || evictAt < at) at = evictAt;
  }
  return at;
}

/** The Pod's Ready condition False, as the node lifecycle controller's MarkPodsNotReady. */
async function markPodNotReady(cluster: SimulatedCluster, pod: StoredObject, now: number): Promise<void> {
  const conditions = (pod.object.status as { conditions?: PodCondition[] } | undefined)?.conditions ?? [];
  if (conditions.find((c) => c.type === 'Ready')?.status !== 'True') return;
  await cluster.controllerWrites.updateStatus(cluster.podType, pod, (object) => {
    const status = object.status as { conditions: PodCondition[] };
    status.conditions = status.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: timeText(now) } : c));
  });
}
