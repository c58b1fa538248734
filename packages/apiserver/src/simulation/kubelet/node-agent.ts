/**
 * The kubelet's side of each simulated Node: it registers the Node, reports its status (conditions,
 * capacity, addresses, nodeInfo) when something changes and at least every 5 minutes (the kubelet's
 * `nodeStatusReportFrequency`), and renews the Node's Lease in `kube-node-lease` every 40 s of the
 * simulation's clock (the real kubelet renews every 10 s; fewer writes, the same health signal for
 * the node lifecycle controller, whose grace period is 50 s). Under a `nodeNotReady` fault with
 * status Unknown it stops altogether, as a kubelet that is down; with False it reports NotReady.
 */
import type { KubeObject } from '@kubeloop/resource';
import { objectKeyOf } from '../../objects/object-context.js';
import { storeKeyOf } from '../../types/resource-type.js';
import type { SimulatedController } from '../simulated-controller.js';
import { keepTransitions, kubeletConditions, nodeStatusBody, registeredNode } from './node-object.js';
import type { NodeCondition } from './node-object.js';
import { microTimeText, nodeLeaseNamespace, timeText } from './simulated-cluster.js';
import type { SimulatedCluster } from './simulated-cluster.js';

/** How often the Lease is renewed. */
export const leaseRenewMs = 40_000;
/** The Lease's `leaseDurationSeconds`. */
const leaseDurationSeconds = 40;
/** How often the Node's status is written when nothing changed. */
const statusReportMs = 5 * 60_000;

function conditionsOf(node: KubeObject): NodeCondition[] | undefined {
  return (node.status as { conditions?: NodeCondition[] } | undefined)?.conditions;
}

/** Registers, reports and heartbeats the simulated Nodes; keys are Node names. */
export function nodeAgentController(cluster: SimulatedCluster): SimulatedController {
  const nodes = storeKeyOf(cluster.nodeType);
  const leases = storeKeyOf(cluster.leaseType);
  return {
    name: 'kubelet-node-status',
    watches: [nodes, leases],
    *keysFor(storeKey, event) {
      const meta = event.current.object.metadata;
      if (storeKey === nodes && event.type === 'DELETED' && cluster.nodeIndex(meta.name)) yield meta.name;
      if (storeKey === leases && event.type === 'DELETED' && meta.namespace === nodeLeaseNamespace && cluster.nodeIndex(meta.name)) yield meta.name;
    },
    initialKeys: () => cluster.nodeNames,
    connect(requeue) {
      cluster.faults.onChange(() => cluster.nodeNames.forEach(requeue));
    },
    async sync(name) {
      const index = cluster.nodeIndex(name);
      const faultStatus = cluster.faults.nodeStatus(name);
      if (index === undefined || faultStatus === 'Unknown') return undefined;
      const now = cluster.now();
      await ensureLeaseNamespace(cluster);
      const node = cluster.node(name) ?? (await cluster.kubeletWrites.create(cluster.nodeType, registeredNode(name, index)));
      // Created by someone else meanwhile: its event syncs again.
      if (!node) return 0;
      const previous = conditionsOf(node.object);
      const conditions = keepTransitions(kubeletConditions(faultStatus === undefined, timeText(now)), previous);
      const heartbeat = Date.parse(previous?.find((c) => c.type === 'Ready')?.lastHeartbeatTime ?? '');
      const changed = !previous || conditions.some((c) => previous.find((p) => p.type === c.type)?.status !== c.status);
      if (changed || !(now - heartbeat < statusReportMs)) {
        await cluster.kubeletWrites.updateStatus(cluster.nodeType, node, (object) => {
          object.status = { ...(object.status as Record<string, unknown> | undefined), ...nodeStatusBody(name, index, cluster.settings.nodeCapacity), conditions };
        });
      }
      const renewedAt = await renewLease(cluster, node.object, now);
      const reportedAt = changed ? now : Number.isNaN(heartbeat) ? now : Math.min(heartbeat, now);
      return Math.max(0, Math.min(renewedAt + leaseRenewMs, reportedAt + statusReportMs) - now);
    },
  };
}

async function ensureLeaseNamespace(cluster: SimulatedCluster): Promise<void> {
  if (cluster.ctx.store.get(storeKeyOf(cluster.namespaceType), nodeLeaseNamespace)) return;
  await cluster.ctx.writes.as('kube-apiserver').create(cluster.namespaceType, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: nodeLeaseNamespace } });
}

/** Creates or renews the Node's Lease when due; returns when it was last renewed. */
async function renewLease(cluster: SimulatedCluster, node: KubeObject, now: number): Promise<number> {
  const name = node.metadata.name;
  const stored = cluster.ctx.store.get(storeKeyOf(cluster.leaseType), objectKeyOf(nodeLeaseNamespace, name));
  const spec = { holderIdentity: name, leaseDurationSeconds, renewTime: microTimeText(now) };
  if (!stored) {
    const ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid ?? '' }];
    await cluster.kubeletWrites.create(cluster.leaseType, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: nodeLeaseNamespace, ownerReferences }, spec });
    return now;
  }
  const renewed = Date.parse((stored.object.spec as { renewTime?: string } | undefined)?.renewTime ?? '');
  if (now - renewed < leaseRenewMs) return renewed;
  await cluster.kubeletWrites.update(cluster.leaseType, stored, (object) => {
    object.spec = { ...(object.spec as Record<string, unknown> | undefined), ...spec };
  });
  return now;
}
