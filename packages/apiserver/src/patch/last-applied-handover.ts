/**
 * The hand-over from client-side to server-side apply, as kube-apiserver does it (its
 * "last-applied" field manager): when `kubectl apply --server-side` (manager `kubectl`) conflicts
 * with the fields a client-side `kubectl apply` wrote, the conflicts on fields that the object's
 * `kubectl.kubernetes.io/last-applied-configuration` annotation lists, with the value the object
 * still has, are not conflicts: the apply takes them over. Other conflicts stay conflicts.
 */
import { isJsonObject, jsonEqual } from '../json-value.js';
import type { JsonObject } from '../json-value.js';
import { FieldSet, ValueReader, fieldSetOf, pathOf, visitMembers } from './field-set.js';
import type { FieldStrategy } from './patch-strategies.js';

const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/** The manager whose applies take over client-side apply's fields (kubectl's default for `--server-side`). */
export const handoverManager = 'kubectl';

/**
 * The fields of `live`'s last-applied configuration that still have the value it applied (for a
 * list item or a map: that it is still there); undefined when there is no readable annotation.
 */
export function lastAppliedFields(live: JsonObject, strategy: FieldStrategy): FieldSet | undefined {
  const metadata = live['metadata'];
  const annotations = isJsonObject(metadata) ? metadata['annotations'] : undefined;
  const text = isJsonObject(annotations) ? annotations[lastAppliedAnnotation] : undefined;
  if (typeof text !== 'string' || text === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(lastApplied)) return undefined;
  const unchanged = new FieldSet();
  visitMembers(fieldSetOf(lastApplied, strategy), [new ValueReader(lastApplied), new ValueReader(live)], ({ node, values }) => {
    if (stillApplied(values[0], values[1])) unchanged.add(pathOf(node));
  });
  return unchanged;
}

function stillApplied(applied: unknown, current: unknown): boolean {
  if (current === undefined) return false;
  // A map or a list item: present is enough; its leaves are compared on their own paths.
  if (isJsonObject(applied) && isJsonObject(current)) return true;
  return jsonEqual(applied, current);
}
