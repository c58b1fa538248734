/**
 * kube-scheduler, simulated: a Pod without `spec.nodeName` whose `schedulerName` is
 * `default-scheduler` is bound to the fitting Node (see `scheduling-fit.ts`) with the fewest Pods
 * (ties by name), with `PodScheduled` True; a Pod that fits none gets `PodScheduled` False, reason
 * `Unschedulable`, and is tried again when a Node changes or a Pod goes away, as the real
 * scheduler's queue does on those cluster events.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { StoredObject } from '../../storage/change-event.js';
import { storeKeyOf } from '../../types/resource-type.js';
import type { SimulatedController } from '../simulated-controller.js';
import { misfit, unschedulableMessage } from './scheduling-fit.js';
import type { NodeMisfit, NodeUsage, SchedulingSpec } from './scheduling-fit.js';
import { podRequests } from './pod-requests.js';
import { podFinished, podSpec, timeText } from './simulated-cluster.js';
import type { SimulatedCluster } from './simulated-cluster.js';

const defaultScheduler = 'default-scheduler';

interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: null;
  lastTransitionTime?: string;
}

/** Whether the simulated scheduler places this Pod. */
function waitsForScheduling(pod: KubeObject): boolean {
  const spec = podSpec(pod);
  return !spec.nodeName && (spec.schedulerName ?? defaultScheduler) === defaultScheduler && !pod.metadata.deletionTimestamp && !podFinished(pod);
}

/** What the Pods bound to each Node request. */
function usageByNode(cluster: SimulatedCluster): Map<string, Map<string, number>> {
  const usage = new Map<string, Map<string, number>>();
  for (const stored of cluster.pods()) {
    const nodeName = podSpec(stored.object).nodeName;
    if (!nodeName || podFinished(stored.object)) continue;
    const used = usage.get(nodeName) ?? new Map<string, number>([['pods', 0]]);
    used.set('pods', (used.get('pods') ?? 0) + 1);
    for (const [resource, units] of podRequests(stored.object.spec as SchedulingSpec)) used.set(resource, (used.get(resource) ?? 0) + units);
    usage.set(nodeName, used);
  }
  return usage;
}

/** Binds unscheduled Pods; keys are Pod store keys (`namespace/name`). */
export function schedulerController(cluster: SimulatedCluster): SimulatedController {
  const pods = storeKeyOf(cluster.podType);
  const nodes = storeKeyOf(cluster.nodeType);
  const waiting = function* (): Iterable<string> {
    for (const stored of cluster.pods()) if (waitsForScheduling(stored.object)) yield stored.key;
  };
  return {
    name: 'scheduler',
    watches: [pods, nodes],
    *keysFor(storeKey, event) {
      if (storeKey === nodes) {
        yield* waiting();
        return;
      }
      const pod = event.current.object;
      if (event.type !== 'DELETED' && waitsForScheduling(pod)) yield event.current.key;
      // A Pod gone or finished frees room on its Node.
      if (podSpec(pod).nodeName && (event.type === 'DELETED' || podFinished(pod))) yield* waiting();
    },
    initialKeys: waiting,
    async sync(key) {
      const stored = cluster.pod(key);
      if (!stored || !waitsForScheduling(stored.object)) return undefined;
      await schedule(cluster, stored);
      return undefined;
    },
  };
}

async function schedule(cluster: SimulatedCluster, stored: StoredObject): Promise<void> {
  const spec = (stored.object.spec ?? {}) as SchedulingSpec;
  const usage = usageByNode(cluster);
  const nodes = cluster.nodes().sort((a, b) => a.key.localeCompare(b.key, 'en', { numeric: true }));
  const misfits: NodeMisfit[] = [];
  let best: { name: string; pods: number } | undefined;
  for (const node of nodes) {
    const used: NodeUsage = usage.get(node.key) ?? new Map();
    const why = misfit(spec, node.object, used);
    if (why) {
      misfits.push(why);
      continue;
    }
    const count = used.get('pods') ?? 0;
    if (!best || count < best.pods) best = { name: node.key, pods: count };
  }
  const now = timeText(cluster.now());
  if (best) {
    await cluster.schedulerWrites.bind(cluster.podType, stored, best.name, now);
    return;
  }
  const message = unschedulableMessage(nodes.length, misfits);
  await cluster.schedulerWrites.updateStatus(cluster.podType, stored, (object) => {
    const status = (object.status ??= {}) as { conditions?: PodCondition[] };
    const conditions = status.conditions ?? [];
    const previous = conditions.find((c) => c.type === 'PodScheduled');
    const condition: PodCondition = {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message,
      lastProbeTime: null,
      lastTransitionTime: previous?.status === 'False' && previous.lastTransitionTime ? previous.lastTransitionTime : now,
    };
    status.conditions = [...conditions.filter((c) => c.type !== 'PodScheduled'), condition];
  });
}
