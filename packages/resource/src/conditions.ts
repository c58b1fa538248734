/**
 * Status conditions as apimachinery's `metav1.Condition` and the helpers of `k8s.io/apimachinery/pkg/api/meta`
 * (`SetStatusCondition`, `FindStatusCondition`, `RemoveStatusCondition`, `IsStatusConditionTrue`...), with
 * the same semantics: `lastTransitionTime` moves only when `status` changes.
 */
import { formatTime } from './micro-time.js';

/** `True`, `False` or `Unknown`. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** One condition of an object's `status.conditions` (`metav1.Condition`). */
export interface Condition {
  /** CamelCase type, e.g. `Ready`, `Progressing`. Unique within the list. */
  type: string;
  status: ConditionStatus;
  /** The `metadata.generation` the condition was set for. */
  observedGeneration?: number;
  /** RFC 3339 time of the last change of `status`. */
  lastTransitionTime: string;
  /** CamelCase, programmatic reason of the last transition. */
  reason: string;
  /** Human-readable details. */
  message: string;
}

/** A condition to set: `lastTransitionTime` may be left out (set to now when the status changes). */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string | undefined };

/** What holds the conditions: usually the object's `status`. `setCondition` creates the list when missing. */
export interface ConditionHolder {
  conditions?: Condition[] | undefined;
}

/** Options of {@link setCondition}. */
export interface SetConditionOptions {
  /** The time written as `lastTransitionTime` when one is needed and the input has none. Default: now. */
  now?: Date | undefined;
}

/**
 * Sets `condition` in `holder.conditions` (created when missing) and returns whether anything changed,
 * as `meta.SetStatusCondition`: a new type is appended (with `lastTransitionTime` now unless given); for an
 * existing type, a different `status` updates it and its `lastTransitionTime` (the given one, else now),
 * and `reason`, `message` and `observedGeneration` are updated when they differ, without touching
 * `lastTransitionTime`. It modifies `holder`: copy an object from an informer's cache before using it.
 */
export function setCondition(holder: ConditionHolder, condition: ConditionInput, options: SetConditionOptions = {}): boolean {
  const now = (): string => formatTime(options.now ?? new Date());
  const conditions = (holder.conditions ??= []);
  const existing = conditions.find((c) => c.type === condition.type);
  if (existing === undefined) {
    const added: Condition = { ...condition, lastTransitionTime: condition.lastTransitionTime || now() };
    if (added.observedGeneration === undefined) delete added.observedGeneration;
    conditions.push(added);
    return true;
  }
  let changed = false;
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = condition.lastTransitionTime || now();
    changed = true;
  }
  if (existing.reason !== condition.reason) {
    existing.reason = condition.reason;
    changed = true;
  }
  if (existing.message !== condition.message) {
    existing.message = condition.message;
    changed = true;
  }
  // Go's int64 has no "unset": a missing observedGeneration is 0.
  if ((existing.observedGeneration ?? 0) !== (condition.observedGeneration ?? 0)) {
    if (condition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = condition.observedGeneration;
    changed = true;
  }
  return changed;
}

/** The condition of `type`, or undefined (`meta.FindStatusCondition`). */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Removes the condition of `type` from `holder.conditions`; returns whether there was one (`meta.RemoveStatusCondition`). */
export function removeCondition(holder: ConditionHolder, type: string): boolean {
  const conditions = holder.conditions;
  if (conditions === undefined) return false;
  const index = conditions.findIndex((c) => c.type === type);
  if (index < 0) return false;
  conditions.splice(index, 1);
  return true;
}

/** Whether the condition of `type` is present with status `True` (`meta.IsStatusConditionTrue`). */
export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/** Whether the condition of `type` is present with status `False` (`meta.IsStatusConditionFalse`). */
export function isConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'False';
}
