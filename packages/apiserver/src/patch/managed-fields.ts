/**
 * `metadata.managedFields`: who owns which fields, as kube-apiserver's field manager keeps it.
 *
 * 1. Every write records its manager (the `fieldManager` parameter, else the User-Agent's program
 *    name). A create, update or non-apply patch is an `Update`: its manager gains the fields the
 *    write set or changed, and other managers lose them. A write that changes nothing changes no
 *    entry; a write that sends `managedFields: []` resets them (no entry is added).
 * 2. An apply (`Apply`) owns exactly the fields of its configuration. Applying a field another
 *    manager owns with a different value is a conflict (409, every conflicting field listed),
 *    unless `force=true`, which takes the fields from their owners. Applying the same value
 *    shares the field.
 * 3. A field the manager applied before and omits now is removed from the object, unless another
 *    manager owns it (or something below it).
 * 4. Entries left with no fields are dropped. Managers are told apart by name, operation and
 *    subresource, and entries are sorted (Apply first, then by time), as the real server does.
 */
import { handoverManager, lastAppliedFields } from './last-applied-handover.js';
import { cloneJson, isJsonObject, jsonEqual } from '../json-value.js';
import type { JsonObject } from '../json-value.js';
import { FieldSet, ValueReader, fieldSetFromV1, fieldSetOf, fieldSetToV1, mergeApplied, pathOf, pathText, visitMembers, withoutUncovered } from './field-set.js';
import type { FieldPath } from './field-set.js';
import type { FieldStrategy } from './patch-strategies.js';
import { timestampText } from '../timestamp-text.js';
import { leftOutText, maxStatusCauses } from '../http/status-error.js';

/** One managedFields entry. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

/** What every managed write knows. */
export interface ManagedWrite {
  readonly manager: string;
  /** `group/version` of the request. */
  readonly apiVersion: string;
  readonly subresource: string | undefined;
  readonly now: Date;
  /** The kind's strategic merge strategy: which lists are keyed or sets. */
  readonly strategy: FieldStrategy;
}

/** One field another manager owns with a different value. */
export interface ApplyConflict {
  /** The owner, as the real server prints it: `"name"`, or `"name" using v1 at <time>` for an Update owner. */
  readonly manager: string;
  /** `.spec.replicas`. */
  readonly field: string;
}

/** The conflicts of a refused apply (409). */
export class ApplyConflictError extends Error {
  override readonly name = 'ApplyConflictError';
  constructor(readonly conflicts: readonly ApplyConflict[]) {
    super(conflictMessage(conflicts));
  }
}

/** kube-apiserver's conflict message, grouped by manager; at most `maxStatusCauses` fields quoted, the rest counted. */
function conflictMessage(conflicts: readonly ApplyConflict[]): string {
  const first = conflicts[0];
  if (conflicts.length === 1 && first) return `Apply failed with 1 conflict: conflict with ${first.manager}: ${first.field}`;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const fields = byManager.get(c.manager);
    if (fields) fields.push(c.field);
    else byManager.set(c.manager, [c.field]);
  }
  const lines: string[] = [];
  let quoted = 0;
  for (const manager of [...byManager.keys()].sort()) {
    if (quoted >= maxStatusCauses) break;
    lines.push(`conflicts with ${manager}:`);
    for (const field of byManager.get(manager) ?? []) {
      if (quoted >= maxStatusCauses) break;
      lines.push(`- ${field}`);
      quoted++;
    }
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}${leftOutText(conflicts.length - quoted, 'conflicts')}`;
}

/** The manager named by a User-Agent: its program name, the text before the first `/` (`kubectl/v1.32 ...` -> `kubectl`). */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const name = (userAgent ?? '').split('/')[0]?.trim() ?? '';
  return name === '' ? 'unknown' : name;
}

interface Owner {
  entry: ManagedFieldsEntry;
  set: FieldSet;
}

function readEntries(obj: JsonObject | undefined): Owner[] {
  const meta = obj?.['metadata'];
  const list = isJsonObject(meta) && Array.isArray(meta['managedFields']) ? (meta['managedFields'] as unknown[]) : [];
  return list.filter(isJsonObject).map((raw) => {
    // The entry's fields are copied, but not its FieldsV1: read once into the set, written anew by `finish`.
    const entry = cloneJson({ ...raw, fieldsV1: {} }) as unknown as ManagedFieldsEntry;
    return { entry, set: fieldSetFromV1(raw['fieldsV1']) };
  });
}

function sameManager(entry: ManagedFieldsEntry, manager: string, operation: string, subresource: string | undefined): boolean {
  return entry.manager === manager && entry.operation === operation && entry.subresource === subresource;
}

function entryFor(write: ManagedWrite, operation: 'Apply' | 'Update', set: FieldSet): ManagedFieldsEntry {
  const entry: ManagedFieldsEntry = { manager: write.manager, operation, apiVersion: write.apiVersion, time: timestampText(write.now), fieldsType: 'FieldsV1', fieldsV1: fieldSetToV1(set) };
  if (write.subresource !== undefined) entry.subresource = write.subresource;
  return entry;
}

function printedOwner(entry: ManagedFieldsEntry): string {
  const name = JSON.stringify(entry.manager);
  return entry.operation === 'Update' ? `${name} using ${entry.apiVersion} at ${entry.time}` : name;
}

/** kube-apiserver's order of entries: by operation (Apply first), time, manager, apiVersion, subresource. */
function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  const keys = (e: ManagedFieldsEntry): string[] => [e.operation, e.time, e.manager, e.apiVersion, e.subresource ?? ''];
  const a = keys(p);
  const b = keys(q);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] as string) < (b[i] as string) ? -1 : 1;
  return 0;
}

/** The entries after a write: owners with what remains and the writer's entry, sorted; empty owners dropped. */
function finish(owners: Owner[], mine: ManagedFieldsEntry | undefined): ManagedFieldsEntry[] | undefined {
  const entries = owners.filter((o) => o.set.size > 0).map((o) => ({ ...o.entry, fieldsV1: fieldSetToV1(o.set) }));
  if (mine) entries.push(mine);
  return entries.length > 0 ? entries.sort(compareEntries) : undefined;
}

/**
 * Applies a configuration for `write.manager` to `current` (undefined: the object does not exist)
 * and returns the new object with its managedFields; neither input is mutated.
 *
 * @throws {@link ApplyConflictError} when the configuration changes fields other managers own and `force` is false.
 */
export function applyWithOwnership(current: JsonObject | undefined, config: JsonObject, write: ManagedWrite & { readonly force: boolean }): JsonObject {
  // Every operation below walks a field set beside the objects (no path is looked up from the root).
  const configValues = new ValueReader(config);
  const applied = fieldSetOf(config, write.strategy);
  visitMembers(applied, [configValues], ({ node, values }) => {
    if (values[0] === null) applied.unmark(node);
  });
  const owners = readEntries(current);
  const mineIndex = owners.findIndex((o) => sameManager(o.entry, write.manager, 'Apply', write.subresource));
  const previous = mineIndex >= 0 ? (owners.splice(mineIndex, 1)[0] as Owner).set : new FieldSet();

  const conflicts: { owner: Owner; path: FieldPath }[] = [];
  if (current) {
    const readers = [new ValueReader(current), configValues];
    for (const owner of owners) {
      visitMembers(applied, readers, ({ node, values, along }) => {
        // Two maps (a keyed list's items included) conflict only in their fields, visited on their own.
        if (along?.member && !(isJsonObject(values[0]) && isJsonObject(values[1])) && !jsonEqual(values[0], values[1])) conflicts.push({ owner, path: pathOf(node) });
      }, { set: owner.set, onlyShared: true });
    }
  }
  const handedOver = conflicts.length > 0 && !write.force && current && write.manager === handoverManager ? lastAppliedFields(current, write.strategy) : undefined;
  const refused = handedOver ? conflicts.filter((c) => !handedOver.has(c.path)) : conflicts;
  if (refused.length > 0 && !write.force) {
    throw new ApplyConflictError(refused.map((c) => ({ manager: printedOwner(c.owner.entry), field: pathText(c.path) })));
  }
  for (const { owner, path } of conflicts) owner.set.delete(path);

  // Rule 3: what this manager applied before and no longer applies goes, unless someone else holds it.
  const result = current ? withoutUncovered(current, previous, [applied, ...owners.map((o) => o.set)]) : {};
  const configCopy = cloneJson(config);
  const configMeta = configCopy['metadata'];
  if (isJsonObject(configMeta)) delete configMeta['managedFields'];
  mergeApplied(result, configCopy, write.strategy);
  const meta = (isJsonObject(result['metadata']) ? result['metadata'] : (result['metadata'] = {}));
  const entries = finish(owners, entryFor(write, 'Apply', applied));
  if (entries) meta['managedFields'] = entries;
  else delete meta['managedFields'];
  return result;
}

/**
 * The managedFields after an `Update` (create, update, non-apply patch) that turned `old`
 * (undefined for a create) into `next`: `next`'s own managedFields are the starting point (kept
 * from `old` when the request left them out). Returns undefined when no entry remains.
 */
export function managedFieldsAfterUpdate(old: JsonObject | undefined, next: JsonObject, write: ManagedWrite): ManagedFieldsEntry[] | undefined {
  const owners = readEntries(next);
  const nextValues = new ValueReader(next);
  // Every field of `next`, less those `old` had with the same value.
  const changed = fieldSetOf(next, write.strategy);
  if (old) {
    visitMembers(changed, [new ValueReader(old), nextValues], ({ node, values, along }) => {
      if (along?.member && jsonEqual(values[0], values[1])) changed.unmark(node);
    }, { set: fieldSetOf(old, write.strategy), onlyShared: false });
  }
  for (const owner of owners) {
    // Fields that are gone are nobody's; changed fields now belong to the writer.
    visitMembers(owner.set, [nextValues], ({ node, values, along }) => {
      if (values[0] === undefined || along?.member) owner.set.unmark(node);
    }, { set: changed, onlyShared: false });
  }
  if (changed.size === 0) return finish(owners, undefined);
  const mineIndex = owners.findIndex((o) => sameManager(o.entry, write.manager, 'Update', write.subresource));
  const mine = mineIndex >= 0 ? (owners.splice(mineIndex, 1)[0] as Owner).set : new FieldSet();
  mine.addAll(changed);
  return finish(owners, entryFor(write, 'Update', mine));
}
