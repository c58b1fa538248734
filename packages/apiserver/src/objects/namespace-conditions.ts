/**
 * The status conditions of a terminating namespace, as kube-controller-manager's namespace
 * controller writes them after each pass over the namespace's contents: all five condition types,
 * each `False` with its "all is well" reason unless the pass found the problem, then `True`.
 * Discovery and group-version parsing cannot fail here (every served type is known), so those two
 * are always `False`; the other three come from the pass (see {@link ContentTally}).
 */

/** What one pass over a namespace's contents left. */
export interface ContentTally {
  /** `resource.group` (`configmaps.` for the core group, as upstream prints it) -> objects left. */
  readonly remaining: Map<string, number>;
  /** Finalizer -> objects left that carry it. */
  readonly finalizers: Map<string, number>;
  /** The messages of the deletes that failed, one per resource type. */
  readonly failures: Map<string, string>;
}

/** An empty tally. */
export function emptyTally(): ContentTally {
  return { remaining: new Map(), finalizers: new Map(), failures: new Map() };
}

/** Objects the tally found left. */
export function remainingCount(tally: ContentTally): number {
  let total = 0;
  for (const n of tally.remaining.values()) total += n;
  return total;
}

/** One entry of `status.conditions`. */
interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The condition types the namespace controller maintains, in its order, with their "all is well" reason and message. */
const conditionTypes: readonly { type: string; okReason: string; okMessage: string }[] = [
  { type: 'NamespaceDeletionDiscoveryFailure', okReason: 'ResourcesDiscovered', okMessage: 'All resources successfully discovered' },
  { type: 'NamespaceDeletionGroupVersionParsingFailure', okReason: 'ParsedGroupVersions', okMessage: 'All legacy kube types successfully parsed' },
  { type: 'NamespaceDeletionContentFailure', okReason: 'ContentDeleted', okMessage: 'All content successfully deleted, may be waiting on finalization' },
  { type: 'NamespaceContentRemaining', okReason: 'ContentRemoved', okMessage: 'All content successfully removed' },
  { type: 'NamespaceFinalizersRemaining', okReason: 'ContentHasNoFinalizers', okMessage: 'All content-preserving finalizers finished' },
];

/** `<entry><suffix>` for each entry, sorted (upstream sorts "for stable updates"). */
function sortedEntries(counts: Map<string, number>, suffix: (n: number) => string): string {
  return [...counts].map(([name, n]) => `${name}${suffix(n)}`).sort().join(', ');
}

/** The failing conditions a tally calls for, by type. */
function failingConditions(tally: ContentTally): Map<string, { reason: string; message: string }> {
  const failing = new Map<string, { reason: string; message: string }>();
  if (tally.failures.size > 0) {
    const messages = [...tally.failures.values()].sort().join(', ');
    failing.set('NamespaceDeletionContentFailure', { reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${tally.failures.size} remaining: ${messages}` });
  }
  if (tally.remaining.size > 0) {
    const message = `Some resources are remaining: ${sortedEntries(tally.remaining, (n) => ` has ${n} resource instances`)}`;
    failing.set('NamespaceContentRemaining', { reason: 'SomeResourcesRemain', message });
  }
  if (tally.finalizers.size > 0) {
    const message = `Some content in the namespace has finalizers remaining: ${sortedEntries(tally.finalizers, (n) => ` in ${n} resource instances`)}`;
    failing.set('NamespaceFinalizersRemaining', { reason: 'SomeFinalizersRemain', message });
  }
  return failing;
}

/**
 * Sets the five conditions on `status` from a tally (upstream's `updateConditions`): a missing one
 * is added; one whose status, reason or message differs is rewritten, its `lastTransitionTime`
 * moving only when its status flips. Returns whether anything changed.
 */
export function applyNamespaceConditions(status: Record<string, unknown>, tally: ContentTally, now: string): boolean {
  const failing = failingConditions(tally);
  const conditions: NamespaceCondition[] = Array.isArray(status['conditions']) ? (status['conditions'] as NamespaceCondition[]) : [];
  let changed = false;
  for (const { type, okReason, okMessage } of conditionTypes) {
    const problem = failing.get(type);
    const wanted = { status: problem ? ('True' as const) : ('False' as const), reason: problem?.reason ?? okReason, message: problem?.message ?? okMessage };
    const old = conditions.find((c) => c?.type === type);
    if (!old) {
      conditions.push({ type, status: wanted.status, lastTransitionTime: now, reason: wanted.reason, message: wanted.message });
      changed = true;
    } else if (old.status !== wanted.status || old.reason !== wanted.reason || old.message !== wanted.message) {
      if (old.status !== wanted.status) old.lastTransitionTime = now;
      Object.assign(old, wanted);
      changed = true;
    }
  }
  status['conditions'] = conditions;
  return changed;
}
