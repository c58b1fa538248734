/** Taints and tolerations, by the rules of the scheduler and the taint eviction controller. */

/** A node's taint. */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  /** `NoSchedule`, `PreferNoSchedule` or `NoExecute`. */
  readonly effect: string;
  readonly timeAdded?: string;
}

/** A Pod's toleration. */
export interface Toleration {
  readonly key?: string;
  /** `Exists` or `Equal` (the default). */
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
  readonly tolerationSeconds?: number;
}

/** Whether `toleration` tolerates `taint` (an empty effect matches every effect; an empty key with Exists, every key). */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  if (!toleration.key) return false;
  return (toleration.value ?? '') === (taint.value ?? '');
}

/** The first taint with a scheduling effect (NoSchedule, NoExecute) no toleration tolerates. */
export function untoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint | undefined {
  return taints.find((taint) => (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !tolerations.some((t) => tolerates(t, taint)));
}

/**
 * How long (ms) a Pod stays on a node with the NoExecute `taint`: the shortest `tolerationSeconds` of
 * the tolerations that tolerate it; Infinity when one tolerates it for ever. A Pod with no such
 * toleration gets `defaultSeconds`: the 300 s that kube-apiserver's DefaultTolerationSeconds
 * admission gives every Pod for the not-ready and unreachable taints (this server does not add them).
 */
export function tolerationMs(taint: Taint, tolerations: readonly Toleration[], defaultSeconds: number): number {
  const matching = tolerations.filter((t) => tolerates(t, taint));
  if (matching.length === 0) return defaultSeconds * 1000;
  let shortest = Number.POSITIVE_INFINITY;
  for (const t of matching) if (typeof t.tolerationSeconds === 'number') shortest = Math.min(shortest, Math.max(0, t.tolerationSeconds) * 1000);
  return shortest;
}
