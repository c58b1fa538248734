/**
 * Server-side apply (`application/apply-patch+yaml`) with field ownership (see
 * `managed-fields.ts` for the rules): a configuration is merged into the existing object (maps
 * merge; lists the kind's strategy keys, such as containers by name, finalizers and owner
 * references, merge item by item; other lists are replaced), fields the manager stops applying
 * are removed unless another manager owns them, and changing a field another manager owns is a
 * conflict unless `force` is set.
 */
import { badPatch } from './patch-error.js';
import { isJsonObject } from '../json-value.js';
import type { JsonObject } from '../json-value.js';
import { fieldSetOf, fieldSetToV1 } from './field-set.js';
import { applyWithOwnership } from './managed-fields.js';
import { strategyFor } from './patch-strategies.js';
import type { FieldStrategy } from './patch-strategies.js';

/** Options of {@link applyServerSideApply}. */
export interface ServerSideApplyOptions {
  /** Current time, for the managedFields entry. Default: `new Date()`. */
  now?: Date;
  /** The subresource applied to (`status`), recorded in the managedFields entry. Default: none. */
  subresource?: string;
  /** Take fields other managers own instead of failing with a conflict. Default false. */
  force?: boolean;
  /** Which lists are keyed or sets. Default: the strategy of the configuration's apiVersion and kind. */
  strategy?: FieldStrategy;
}

/** The FieldsV1 set of a configuration: `{"f:spec":{"f:replicas":{}}}` (lists as the kind's strategy says). */
export function fieldsV1Of(applied: JsonObject, strategy: FieldStrategy = strategyFor(applied['apiVersion'], applied['kind'])): JsonObject {
  return fieldSetToV1(fieldSetOf(applied, strategy));
}

/**
 * Applies a configuration for `fieldManager`: the configuration (plus its managedFields entry)
 * when `existing` is undefined, else `existing` with it applied. Neither input is mutated.
 *
 * @throws {@link PatchError} 400 when `applied` is not an object or `fieldManager` is empty.
 * @throws {@link ApplyConflictError} when fields other managers own would change and `force` is not set.
 */
export function applyServerSideApply(existing: JsonObject | undefined, applied: JsonObject, fieldManager: string, options: ServerSideApplyOptions = {}): JsonObject {
  if (!isJsonObject(applied)) throw badPatch('apply patch must be a JSON or YAML object');
  if (fieldManager === '') throw badPatch('PATCH requests with apply content type require a fieldManager');
  const existingApiVersion = existing?.['apiVersion'];
  const apiVersion = typeof applied['apiVersion'] === 'string' ? applied['apiVersion'] : typeof existingApiVersion === 'string' ? existingApiVersion : '';
  const kind = applied['kind'] ?? existing?.['kind'];
  return applyWithOwnership(existing, applied, {
    manager: fieldManager,
    apiVersion,
    subresource: options.subresource,
    now: options.now ?? new Date(),
    strategy: options.strategy ?? strategyFor(apiVersion, kind),
    force: options.force ?? false,
  });
}
