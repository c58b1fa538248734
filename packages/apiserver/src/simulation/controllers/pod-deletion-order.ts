/**
 * Which Pods a ReplicaSet deletes first when it has too many: kube-controller-manager's
 * `ActivePodsWithRanks` order, so the least useful go first: unscheduled before scheduled,
 * Pending before Unknown before Running, not ready before ready, lower `pod-deletion-cost` first,
 * more Pods of the same owner on its node first, ready for less time first, more container restarts
 * first, newer first; the two age comparisons use logarithmic buckets (the LogarithmicScaleDown
 * feature, on by default since 1.22), ties broken by uid.
 */
import type { Pod } from '@kubeloop/resource';
import { isPodReady, podReadySince } from './pod-availability.js';

const deletionCostAnnotation = 'controller.kubernetes.io/pod-deletion-cost';
const phaseOrder: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

/** When the comparisons of ages happen. */
export interface RankingTimes {
  /** The simulation's now (Pod readiness is on its clock). */
  readonly nowMs: number;
  /** The server's now (creation timestamps are on its clock). */
  readonly serverNowMs: number;
}

/**
 * The `count` Pods of `pods` to delete. `related` are the Pods of the same owner (the siblings under
 * one Deployment), whose count per node ranks the Pods that double up on a node first.
 */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], count: number, times: RankingTimes): Pod[] {
  if (count >= pods.length) return [...pods];
  const perNode = new Map<string, number>();
  for (const pod of related) {
    const node = pod.spec?.nodeName ?? '';
    perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  const ranked = pods.map((pod) => ({ pod, rank: perNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
  ranked.sort((a, b) => comparePods(a.pod, a.rank, b.pod, b.rank, times));
  return ranked.slice(0, count).map((entry) => entry.pod);
}

function comparePods(a: Pod, rankA: number, b: Pod, rankB: number, times: RankingTimes): number {
  const assignedA = Boolean(a.spec?.nodeName);
  const assignedB = Boolean(b.spec?.nodeName);
  if (assignedA !== assignedB) return assignedA ? 1 : -1;
  const phaseA = phaseOrder[a.status?.phase ?? ''] ?? 0;
  const phaseB = phaseOrder[b.status?.phase ?? ''] ?? 0;
  if (phaseA !== phaseB) return phaseA - phaseB;
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return readyA ? 1 : -1;
  const costA = deletionCost(a);
  const costB = deletionCost(b);
  if (costA !== costB) return costA - costB;
  if (rankA !== rankB) return rankB - rankA;
  if (readyA && readyB) {
    const byReadiness = compareAges(podReadySince(a), podReadySince(b), times.nowMs, a, b);
    if (byReadiness !== 0) return byReadiness;
  }
  const restartsA = maxRestarts(a);
  const restartsB = maxRestarts(b);
  if (restartsA !== restartsB) return restartsB - restartsA;
  return compareAges(parseTime(a.metadata.creationTimestamp), parseTime(b.metadata.creationTimestamp), times.serverNowMs, a, b);
}

/** Younger first: an unknown time first, then by logarithmic bucket of the age, then by uid. */
function compareAges(sinceA: number | undefined, sinceB: number | undefined, nowMs: number, a: Pod, b: Pod): number {
  if (sinceA === sinceB) return 0;
  if (sinceA === undefined) return -1;
  if (sinceB === undefined) return 1;
  const bucketDiff = ageBucket(nowMs - sinceA) - ageBucket(nowMs - sinceB);
  if (bucketDiff !== 0) return bucketDiff;
  const uidA = a.metadata.uid ?? '';
  const uidB = b.metadata.uid ?? '';
  return uidA < uidB ? -1 : uidA > uidB ? 1 : 0;
}

/** `floor(log2(age in ns))`, -1 for no age: upstream's rank of a duration. */
function ageBucket(ageMs: number): number {
  return ageMs > 0 ? Math.floor(Math.log2(ageMs * 1e6)) : -1;
}

function deletionCost(pod: Pod): number {
  const text = pod.metadata.annotations?.[deletionCostAnnotation];
  const cost = text === undefined ? 0 : Number(text);
  return Number.isInteger(cost) ? cost : 0;
}

function maxRestarts(pod: Pod): number {
  return Math.max(0, ...(pod.status?.containerStatuses ?? []).map((s) => s.restartCount ?? 0));
}

function parseTime(text: string | undefined): number | undefined {
  const ms = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
