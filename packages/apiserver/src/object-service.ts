/**
 * What the server does with objects, independent of HTTP: create, read, list, update, patch and
 * delete, with Kubernetes' rules for each. HTTP handlers parse a request, call one method and
 * write the result; failures are thrown as {@link StatusError}s.
 *
 * Rules (each tested in `object-service*.test.ts` and the HTTP tests):
 * 1. One global resourceVersion counter; a write whose result equals the stored object is a
 *    no-op: 200, nothing stored, no event.
 * 2. `generation` (custom resources, CRDs): 1 on create; +1 when anything outside `metadata`
 *    changes (`status` excluded when the status subresource is on) and when deletion starts.
 * 3. Status subresource: create drops status; main writes keep the old status; `/status` writes
 *    change only status.
 * 4. Optimistic concurrency: a stale resourceVersion is 409; an update of a custom resource
 *    without one is 422; a patch carrying one is checked; delete preconditions (uid, resourceVersion).
 * 5. Finalizers: deleting an object with finalizers sets `deletionTimestamp`,
 *    `deletionGracePeriodSeconds: 0` (MODIFIED); no finalizer may be added while deleting (422);
 *    the write that removes the last finalizer deletes the object (a single DELETED).
 * 6. Namespaced creates need an existing namespace (404) that is not terminating (403).
 * 7. Deleting a namespace deletes its objects, then itself once they are gone; deleting a CRD
 *    deletes its objects and stops serving the type.
 * 8. `propagationPolicy` Orphan / Foreground add the `orphan` / `foregroundDeletion` finalizer
 *    (Background removes both), also on an object already being deleted; the garbage collector
 *    (`garbage-collector.ts`) does the rest through the `gc*` methods here.
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject, OwnerReference } from '@kubeloop/resource';
import { checkDeclaredFields, parseApplyBody } from './apply-configuration.js';
import { decodeError } from './builtin-decoding.js';
import { namespaceType } from './builtin-resources.js';
import { jsonAtApiVersion } from './change-event.js';
import type { StoredObject } from './change-event.js';
import { encodeContinueToken } from './continue-token.js';
import { snapshotAt } from './list-snapshot.js';
import { crdType, customResourceType, storeKeyOfCrd } from './crd-resource.js';
import { forgetSchemaValidators } from './crd-schema.js';
import { finalizersAfterDelete } from './delete-options.js';
import type { PropagationPolicy } from './delete-options.js';
import { cloneJson, jsonEqual } from './json-value.js';
import type { ListOptions } from './list-options.js';
import { generatedName } from './name-validation.js';
import type { ObjectStore } from './object-store.js';
import { canonicalObject, metadataTypeProblem, newFinalizersWhileDeleting, validateObjectMeta } from './object-meta.js';
import { acceptedPatchTypes, patchMediaTypes } from './patch-media-types.js';
import { parseJsonRequest } from './request-body.js';
import { replicasOfScale, scaleOf, writePath } from './scale-subresource.js';
import {
  ApplyConflictError,
  applyJsonPatch,
  applyMergePatch,
  applyServerSideApply,
  applyStrategicMergePatch,
  isPatchError,
  managedFieldsAfterUpdate,
  managerFromUserAgent,
  strategyFor,
} from './patch/index.js';
import type { ResourceRegistry } from './resource-registry.js';
import { parseResourceVersionText } from './resource-version.js';
import { apiVersionOf, storeKeyOf } from './resource-type.js';
import type { FieldValidation, ResourceType } from './resource-type.js';
import {
  StatusError,
  alreadyExists,
  applyConflict,
  forbiddenValue,
  badRequest,
  conflict,
  expired,
  forbidden,
  invalid,
  notFound,
  requiredValue,
  resourceVersionTooLarge,
  staleConflict,
  tooOldResourceVersion,
  unsupportedMediaType,
} from './status-error.js';
import type { FieldProblem } from './status-error.js';

/** Options of every write. */
export interface WriteOptions {
  /** `dryRun=All`: validate and answer, store nothing. */
  readonly dryRun: boolean;
  /** How unknown and duplicate fields are handled. Default on the wire: `Warn`. */
  readonly fieldValidation: FieldValidation;
  /** Field paths the request body repeated (JSON bodies; patches are scanned here). */
  readonly duplicateFields?: readonly string[];
  /** The `fieldManager` parameter. Default: none (an update's manager then comes from {@link userAgent}). */
  readonly fieldManager?: string | undefined;
  /** The request's User-Agent, whose program name manages an update without `fieldManager`. Default: none (no managedFields entry). */
  readonly userAgent?: string | undefined;
}

/** What #create and #update are told besides the request's options. */
type InternalWrite = WriteOptions & {
  readonly subresource: WriteSubresource;
  /** The write is a server-side apply: its managedFields are already set. */
  readonly applied?: boolean;
};

/** What an update writes: the main resource, `/status`, or a namespace's `/finalize` (only `spec.finalizers`). */
export type WriteSubresource = 'status' | 'finalize' | undefined;

/** The outcome of a create, update or patch. */
export interface WriteResult {
  /** The object as stored (or as it would be, for a dry run). */
  readonly stored: StoredObject;
  /** 201 rather than 200. */
  readonly created: boolean;
  /** `Warning` headers to send (unknown fields under `fieldValidation=Warn`). */
  readonly warnings: readonly string[];
}

/** The outcome of a delete. */
export interface DeleteResult {
  /** The object: its last state when deleted, the deleting state when finalizers hold it. */
  readonly stored: StoredObject;
  /** True when the object is gone (no finalizers held it). */
  readonly deleted: boolean;
}

/** `DeleteOptions` as sent in a delete body or query. */
export interface DeleteRequest {
  readonly preconditions?: { readonly uid?: string | undefined; readonly resourceVersion?: string | undefined } | undefined;
  readonly dryRun: boolean;
  /** How dependents are treated; undefined: as the object's `orphan`/`foregroundDeletion` finalizers say, else Background. */
  readonly propagationPolicy?: PropagationPolicy | undefined;
}

/** One page of a list. */
export interface ListPage {
  /** The selected objects, in key order. */
  readonly items: readonly StoredObject[];
  /** The list's `metadata`: resourceVersion, and continue and remainingItemCount when there are more. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** Receives changes of the served types (CRDs created, changed or deleted). */
export interface TypeListener {
  typeChanged(type: ResourceType, previous: ResourceType | undefined): void;
  typeRemoved(storeKey: string): void;
}

/** kube-apiserver's 410 for a continue token whose snapshot is no longer available. */
const continueTooOld =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** Namespaces that exist from the start and may not be deleted. */
export const immortalNamespaces: readonly string[] = ['default', 'kube-system'];

const namespaceStoreKey = storeKeyOf(namespaceType);
const crdStoreKey = storeKeyOf(crdType);

function objectKeyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function nowTime(): string {
  return `${new Date().toISOString().slice(0, 19)}Z`;
}

function clone(obj: KubeObject): KubeObject {
  return cloneJson(obj);
}

function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** True when anything but metadata (and status, with the subresource) differs: the generation rule. */
function specChanged(type: ResourceType, a: KubeObject, b: KubeObject): boolean {
  const skip = (key: string): boolean => key === 'metadata' || key === 'apiVersion' || key === 'kind' || (type.statusSubresource && key === 'status');
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!skip(key) && !jsonEqual(a[key], b[key])) return true;
  }
  return false;
}

/**
 * A write that leaves `managedFields` out keeps the stored ones; one that sends an empty list
 * clears them (as kube-apiserver's field manager does). Runs before the body is normalised, which
 * drops empty lists and so could no longer tell the two apart.
 */
function keepManagedFields(input: KubeObject, old: KubeObject): void {
  const sent = input.metadata.managedFields as unknown;
  if ((sent === undefined || sent === null) && old.metadata.managedFields !== undefined) input.metadata.managedFields = old.metadata.managedFields;
}

/** Objects, with Kubernetes' write rules, over an {@link ObjectStore}. */
export class ObjectService {
  readonly #registry: ResourceRegistry;
  readonly #store: ObjectStore;
  readonly #types: TypeListener;

  constructor(registry: ResourceRegistry, store: ObjectStore, types: TypeListener) {
    this.#registry = registry;
    this.#store = store;
    this.#types = types;
  }

  // --- reads ---

  /** The stored object; 404 when absent. */
  get(type: ResourceType, namespace: string | undefined, name: string): StoredObject {
    const stored = this.#store.get(storeKeyOf(type), objectKeyOf(namespace, name));
    if (!stored) throw notFound(type, name);
    return stored;
  }

  /** A list response body (JSON text) at `version`, honouring selectors, pagination and resourceVersion rules. */
  list(type: ResourceType, version: string, namespace: string | undefined, opts: ListOptions): string {
    const page = this.listPage(type, namespace, opts);
    const apiVersion = apiVersionOf(type, version);
    const items = page.items.map((stored) => jsonAtApiVersion(stored, apiVersion));
    return `{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(page.metadata)},"items":[${items.join(',')}]}`;
  }

  /** The objects of one list page and the list's metadata (selectors, pagination and resourceVersion rules applied). */
  listPage(type: ResourceType, namespace: string | undefined, opts: ListOptions): ListPage {
    const storeKey = storeKeyOf(type);
    const current = this.#store.resourceVersion;
    const requested = opts.resourceVersion;
    let exactRv: number | undefined;
    if (requested !== undefined && requested > 0) {
      if (requested > current) throw resourceVersionTooLarge(requested, current);
      if (opts.resourceVersionMatch === 'Exact' && requested !== current) exactRv = requested;
    }
    const token = opts.continueToken;
    // Only tokens this server issued: their resourceVersion is one it has reached.
    if (token && token.rv > current) throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
    const listRv = token ? token.rv : (exactRv ?? current);
    // Later pages (and exact reads of an older state) see the objects as they were at listRv.
    const snapshot = snapshotAt(this.#store, storeKey, listRv);
    if (!snapshot) {
      if (token) throw expired(continueTooOld);
      throw tooOldResourceVersion(listRv, this.#store.history(storeKey).since);
    }
    const keys = snapshot.keys;
    const prefix = namespace !== undefined ? `${namespace}/` : undefined;
    let i = token ? lowerBound(keys, token.start) : prefix ? lowerBound(keys, prefix) : 0;
    if (prefix && token && token.start < prefix) i = lowerBound(keys, prefix);
    const filtered = opts.labelSelector !== undefined || opts.fieldSelector !== undefined;
    const items: StoredObject[] = [];
    let lastKey: string | undefined;
    let more = false;
    for (; i < keys.length; i++) {
      const key = keys[i] as string;
      if (prefix && !key.startsWith(prefix)) break;
      const stored = snapshot.get(key);
      if (!stored) continue;
      if (filtered) {
        const obj = stored.object;
        if (opts.labelSelector && !opts.labelSelector.matches(obj.metadata.labels)) continue;
        if (opts.fieldSelector && !opts.fieldSelector.matchesObject(obj)) continue;
      }
      if (opts.limit !== undefined && items.length >= opts.limit) {
        more = true;
        break;
      }
      items.push(stored);
      lastKey = key;
    }
    const metadata: Record<string, unknown> = { resourceVersion: String(listRv) };
    if (more && lastKey !== undefined) {
      metadata.continue = encodeContinueToken({ rv: listRv, start: `${lastKey}\u0000` });
      if (!filtered) {
        const end = prefix ? lowerBound(keys, `${prefix.slice(0, -1)}0`) : keys.length;
        metadata.remainingItemCount = end - i;
      }
    }
    return { items, metadata };
  }

  // --- writes ---

  /** POST: creates an object. */
  create(type: ResourceType, version: string, namespace: string | undefined, body: unknown, opts: WriteOptions): Promise<WriteResult> {
    return this.#store.exclusive(async () => {
      const obj = this.#prepareBody(type, version, body, namespace, undefined);
      if (obj.metadata.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
      const decoded = this.#decode(type, version, obj, opts.fieldValidation, opts.duplicateFields);
      return this.#create(type, version, decoded.obj, opts, decoded.warnings);
    });
  }

  async #create(type: ResourceType, version: string, input: KubeObject, opts: WriteOptions & { readonly applied?: boolean }, warnings: string[]): Promise<WriteResult> {
    let obj = input;
    const meta = obj.metadata;
    if (type.namespaced) this.#checkNamespaceAcceptsCreate(type, meta.namespace ?? '', meta.name || meta.generateName || '');
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    meta.uid = randomUUID();
    meta.creationTimestamp = nowTime();
    if (type.hasGeneration) meta.generation = 1;
    else delete meta.generation;
    if (type.statusSubresource) delete obj.status;
    obj.apiVersion = apiVersionOf(type, type.storageVersion);
    type.prepareCreate?.(obj);

    const problems = validateObjectMeta(meta, type.nameRule, true);
    if (problems.length === 0) problems.push(...(type.validate?.(obj, undefined, version) ?? []));
    if (problems.length > 0) throw invalid(type, meta.name || meta.generateName || '', problems);
    if (!opts.applied) this.#recordUpdate(type, version, undefined, obj, opts, undefined);

    const storeKey = storeKeyOf(type);
    let key: string;
    if (!meta.name) {
      // generateName: retry on the (unlikely) collision, as the real server's clients would.
      let attempts = 0;
      do {
        meta.name = generatedName(meta.generateName ?? '');
        key = objectKeyOf(meta.namespace, meta.name);
      } while (this.#store.get(storeKey, key) && ++attempts < 8);
    } else key = objectKeyOf(meta.namespace, meta.name);
    if (this.#store.get(storeKey, key)) throw alreadyExists(type, meta.name);

    // A placeholder keeps resourceVersion at its canonical place; the store sets the value.
    meta.resourceVersion = '0';
    obj = canonicalObject(obj, []);
    if (opts.dryRun) return { stored: this.#dryRunStored(obj, key), created: true, warnings };
    const stored = await this.#store.put(storeKey, key, obj);
    if (type === crdType) this.#registerCrd(stored.object, undefined);
    return { stored, created: true, warnings };
  }

  /** PUT (main resource or `/status`). */
  update(
    type: ResourceType,
    version: string,
    namespace: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions & { readonly subresource: WriteSubresource },
  ): Promise<WriteResult> {
    return this.#store.exclusive(async () => {
      const existing = this.get(type, namespace, name);
      const obj = this.#prepareBody(type, version, body, namespace, name);
      keepManagedFields(obj, existing.object);
      const decoded = this.#decode(type, version, obj, opts.fieldValidation, opts.duplicateFields);
      return this.#update(type, version, existing, decoded.obj, opts, true, decoded.warnings);
    });
  }

  /** PATCH (main resource or `/status`), by media type; apply creates a missing object. */
  patch(
    type: ResourceType,
    version: string,
    namespace: string | undefined,
    name: string,
    body: string,
    mediaType: string,
    opts: WriteOptions & { readonly subresource: 'status' | undefined; readonly force?: boolean | undefined },
  ): Promise<WriteResult> {
    const format = patchMediaTypes[mediaType];
    if (format === undefined || (format === 'strategic' && type.custom)) throw unsupportedMediaType(acceptedPatchTypes(type));
    if (format === 'apply' && !opts.fieldManager) {
      throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [requiredValue('fieldManager', 'is required for apply patch')]);
    }
    if (format !== 'apply' && opts.force !== undefined) {
      throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [forbiddenValue('force', 'may not be specified for non-apply patch')]);
    }
    const applyOptions = { force: opts.force ?? false, subresource: opts.subresource };
    let patch: unknown;
    let duplicateFields: readonly string[] = [];
    if (format === 'apply') {
      // YAML (JSON is YAML too) refuses repeated keys itself, with the real server's words.
      patch = parseApplyBody(body);
      checkDeclaredFields(type, version, patch, namespace, name);
    } else {
      // Merge patches mirror the object, so their repeated keys are reported; a JSON patch is a list of operations.
      const findDuplicates = opts.fieldValidation !== 'Ignore' && (format === 'merge' || format === 'strategic');
      const decoded = parseJsonRequest(body, findDuplicates, (problem) => badRequest(`error decoding patch: ${problem}`));
      patch = decoded.value;
      duplicateFields = decoded.duplicateFields;
    }
    return this.#store.exclusive(async () => {
      const storeKey = storeKeyOf(type);
      const existing = this.#store.get(storeKey, objectKeyOf(namespace, name));
      const apiVersion = apiVersionOf(type, version);
      if (!existing) {
        if (format !== 'apply' || opts.subresource) throw notFound(type, name);
        const applied = this.#runPatch(() => applyServerSideApply(undefined, patch as Record<string, unknown>, opts.fieldManager ?? '', applyOptions));
        const obj = this.#prepareBody(type, version, applied, namespace, name);
        const decoded = this.#decode(type, version, obj, opts.fieldValidation, duplicateFields);
        return this.#create(type, version, decoded.obj, { ...opts, applied: true }, decoded.warnings);
      }
      // Every patch engine works on a copy of its input: a shallow one with the requested apiVersion is enough here.
      const current: Record<string, unknown> = { ...existing.object, apiVersion };
      let patched: Record<string, unknown>;
      if (format === 'apply') {
        const applied = patch as KubeObject;
        if (typeof applied === 'object' && applied !== null) {
          if (applied.metadata?.name !== undefined && applied.metadata.name !== name) {
            throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
          }
          if (applied.apiVersion !== undefined && applied.apiVersion !== apiVersion) {
            throw badRequest(`the API version in the data (${String(applied.apiVersion)}) does not match the expected API version (${apiVersion})`);
          }
        }
        patched = this.#runPatch(() => applyServerSideApply(current, patch as Record<string, unknown>, opts.fieldManager ?? '', applyOptions));
      } else if (format === 'json') patched = this.#runPatch(() => applyJsonPatch(current, patch));
      else if (format === 'merge') patched = this.#runPatch(() => applyMergePatch(current, patch));
      else patched = this.#runPatch(() => applyStrategicMergePatch(current, patch));

      const obj = this.#prepareBody(type, version, patched, namespace, name);
      const rv = obj.metadata.resourceVersion;
      if (rv) parseResourceVersionText('metadata.resourceVersion', rv);
      if (rv && rv !== existing.object.metadata.resourceVersion) throw staleConflict(type, name);
      keepManagedFields(obj, existing.object);
      const decoded = this.#decode(type, version, obj, opts.fieldValidation, duplicateFields);
      return this.#update(type, version, existing, decoded.obj, { ...opts, applied: format === 'apply' }, false, decoded.warnings);
    });
  }

  #runPatch(fn: () => Record<string, unknown>): Record<string, unknown> {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ApplyConflictError) throw applyConflict(err);
      if (isPatchError(err)) {
        throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: err.message, reason: err.reason, code: err.status });
      }
      throw err;
    }
  }

  async #update(
    type: ResourceType,
    version: string,
    existing: StoredObject,
    input: KubeObject,
    opts: InternalWrite,
    requireResourceVersion: boolean,
    warnings: string[],
  ): Promise<WriteResult> {
    const old = existing.object;
    const name = old.metadata.name;
    const rv = input.metadata.resourceVersion;
    if (!rv) {
      if (requireResourceVersion && !type.allowUnconditionalUpdate) {
        throw invalid(type, name, [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }]);
      }
    } else {
      parseResourceVersionText('metadata.resourceVersion', rv);
      if (rv !== old.metadata.resourceVersion) throw staleConflict(type, name);
    }
    if (input.metadata.uid && input.metadata.uid !== old.metadata.uid) {
      throw conflict(type, name, `Precondition failed: UID in precondition: ${input.metadata.uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
    }

    let next: KubeObject;
    if (opts.subresource === 'status') {
      next = clone(old);
      if (input.status === undefined) delete next.status;
      else next.status = input.status;
    } else if (opts.subresource === 'finalize') {
      next = clone(old);
      const finalizers = (input.spec as { finalizers?: unknown } | undefined)?.finalizers;
      next.spec = { ...(old.spec as Record<string, unknown> | undefined), finalizers: Array.isArray(finalizers) ? finalizers : [] };
    } else {
      next = input;
      const meta = next.metadata;
      const oldMeta = old.metadata;
      meta.name = oldMeta.name;
      if (oldMeta.namespace) meta.namespace = oldMeta.namespace;
      else delete meta.namespace;
      meta.uid = oldMeta.uid;
      meta.creationTimestamp = oldMeta.creationTimestamp;
      if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
      else delete meta.deletionTimestamp;
      if (oldMeta.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
      else delete meta.deletionGracePeriodSeconds;
      if (oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
      else delete meta.generation;
      if (type.statusSubresource) {
        if (old.status === undefined) delete next.status;
        else next.status = old.status;
      }
      type.prepareUpdate?.(next, old);
    }
    next.apiVersion = old.apiVersion;

    const problems: FieldProblem[] = validateObjectMeta(next.metadata, type.nameRule, false);
    const finalizerProblem = newFinalizersWhileDeleting(old.metadata, next.metadata);
    if (finalizerProblem) problems.push(finalizerProblem);
    if (problems.length === 0) problems.push(...(type.validate?.(next, old, version) ?? []));
    if (problems.length > 0) throw invalid(type, name, problems);

    if (type.hasGeneration && opts.subresource === undefined && specChanged(type, old, next)) {
      next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    }
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    // A request that sent `managedFields: []` resets them (they were kept from `old` when left out).
    const reset = next.metadata.managedFields === undefined && old.metadata.managedFields !== undefined;
    if (!opts.applied && !reset) this.#recordUpdate(type, version, old, next, opts, opts.subresource);
    next = canonicalObject(next, []);
    if (jsonEqual(old, next)) return { stored: existing, created: false, warnings };

    const storeKey = storeKeyOf(type);
    if (next.metadata.deletionTimestamp && !next.metadata.finalizers?.length && !(type === namespaceType && this.#namespaceHasObjects(name))) {
      if (opts.dryRun) return { stored: this.#dryRunStored(next, existing.key), created: false, warnings };
      const removed = await this.#removeObject(type, existing.key);
      return { stored: removed ?? existing, created: false, warnings };
    }
    if (opts.dryRun) return { stored: this.#dryRunStored(next, existing.key), created: false, warnings };
    const stored = await this.#store.put(storeKey, existing.key, next);
    if (type === crdType) this.#registerCrd(stored.object, old);
    return { stored, created: false, warnings };
  }

  /** GET of `/scale`: the object's Scale. */
  getScale(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    if (!type.scale) throw notFound(type, name);
    return scaleOf(type.scale, this.get(type, namespace, name).object);
  }

  /**
   * PUT or PATCH of `/scale`: `edit` turns the current Scale into the requested one, whose
   * `spec.replicas` becomes the object's (a resourceVersion it carries must be current). Answers the new Scale.
   */
  updateScale(type: ResourceType, version: string, namespace: string | undefined, name: string, edit: (current: KubeObject) => unknown, opts: WriteOptions): Promise<KubeObject> {
    const scale = type.scale;
    if (!scale) throw notFound(type, name);
    return this.#store.exclusive(async () => {
      const existing = this.get(type, namespace, name);
      const requested = replicasOfScale(edit(scaleOf(scale, existing.object)), name);
      if (requested.resourceVersion !== undefined && requested.resourceVersion !== existing.object.metadata.resourceVersion) throw staleConflict(type, name);
      const next = clone(existing.object);
      writePath(next, scale.specReplicasPath, requested.replicas);
      const result = await this.#update(type, version, existing, next, { ...opts, subresource: undefined }, false, []);
      return scaleOf(scale, result.stored.object);
    });
  }

  /** DELETE of one object. */
  delete(type: ResourceType, namespace: string | undefined, name: string, request: DeleteRequest): Promise<DeleteResult> {
    return this.#store.exclusive(async () => {
      const existing = this.get(type, namespace, name);
      const meta = existing.object.metadata;
      const pre = request.preconditions;
      if (pre?.uid && pre.uid !== meta.uid) {
        throw conflict(type, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`);
      }
      if (pre?.resourceVersion) parseResourceVersionText('preconditions.resourceVersion', pre.resourceVersion);
      if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
        throw conflict(type, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
      }
      if (type === namespaceType && immortalNamespaces.includes(name)) throw forbidden(type, name, 'this namespace may not be deleted');
      return this.#deleteOne(type, existing, request.dryRun, request.propagationPolicy);
    });
  }

  async #deleteOne(type: ResourceType, existing: StoredObject, dryRun: boolean, policy: PropagationPolicy | undefined): Promise<DeleteResult> {
    const meta = existing.object.metadata;
    const isNamespace = type === namespaceType;
    const current = meta.finalizers ?? [];
    const finalizers = finalizersAfterDelete(current, policy);
    if (finalizers.length > 0 || (isNamespace && this.#namespaceHasObjects(meta.name))) {
      if (meta.deletionTimestamp && finalizers === current) return { stored: existing, deleted: false };
      const next = clone(existing.object);
      next.metadata.finalizers = [...finalizers];
      const starting = !meta.deletionTimestamp;
      if (starting) {
        next.metadata.deletionTimestamp = nowTime();
        next.metadata.deletionGracePeriodSeconds = 0;
        if (type.hasGeneration) next.metadata.generation = (meta.generation ?? 0) + 1;
        if (isNamespace) next.status = { ...(next.status as Record<string, unknown> | undefined), phase: 'Terminating' };
      }
      const deleting = canonicalObject(next, []);
      if (dryRun) return { stored: this.#dryRunStored(deleting, existing.key), deleted: false };
      const stored = await this.#store.put(storeKeyOf(type), existing.key, deleting);
      if (isNamespace && starting) {
        await this.#deleteNamespaceContents(meta.name);
        const after = this.#store.get(storeKeyOf(type), existing.key);
        if (!after) return { stored, deleted: true };
        return { stored: after, deleted: false };
      }
      return { stored, deleted: false };
    }
    if (dryRun) return { stored: existing, deleted: true };
    const removed = await this.#removeObject(type, existing.key);
    return { stored: removed ?? existing, deleted: true };
  }

  /** DELETE of a collection: every selected object, as individual deletes. Returns the list body. */
  deleteCollection(type: ResourceType, version: string, namespace: string | undefined, opts: ListOptions, request: DeleteRequest): Promise<string> {
    return this.#store.exclusive(async () => {
      const storeKey = storeKeyOf(type);
      const targets = [...this.#store.values(storeKey)].filter((s) => {
        const obj = s.object;
        if (namespace !== undefined && obj.metadata.namespace !== namespace) return false;
        if (opts.labelSelector && !opts.labelSelector.matches(obj.metadata.labels)) return false;
        if (opts.fieldSelector && !opts.fieldSelector.matchesObject(obj)) return false;
        return !(type === namespaceType && immortalNamespaces.includes(obj.metadata.name));
      });
      const apiVersion = apiVersionOf(type, version);
      const items: string[] = [];
      for (const target of targets) {
        const current = this.#store.get(storeKey, target.key);
        if (!current) continue;
        const result = await this.#deleteOne(type, current, request.dryRun, request.propagationPolicy);
        items.push(jsonAtApiVersion(result.stored, apiVersion));
      }
      const rv = String(this.#store.resourceVersion);
      return `{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${rv}"},"items":[${items.join(',')}]}`;
    });
  }

  // --- the garbage collector's writes (see garbage-collector.ts); each does nothing when the object is gone or its uid changed ---

  /** Deletes an object as the garbage collector does: the ordinary delete path with `policy`. */
  gcDelete(type: ResourceType, key: string, uid: string, policy: PropagationPolicy): Promise<void> {
    return this.#store.exclusive(async () => {
      const existing = this.#storedWithUid(type, key, uid);
      if (!existing || (type === namespaceType && immortalNamespaces.includes(key))) return;
      await this.#deleteOne(type, existing, false, policy);
    });
  }

  /** Rewrites an object's `ownerReferences` (dropping references to gone owners, unblocking). No change, no write. */
  gcEditOwnerReferences(type: ResourceType, key: string, uid: string, edit: (refs: readonly OwnerReference[]) => OwnerReference[]): Promise<void> {
    return this.#store.exclusive(async () => {
      const existing = this.#storedWithUid(type, key, uid);
      if (!existing) return;
      const refs = existing.object.metadata.ownerReferences ?? [];
      const edited = edit(refs);
      if (jsonEqual(refs, edited)) return;
      const next = clone(existing.object);
      next.metadata.ownerReferences = edited;
      await this.#store.put(storeKeyOf(type), key, canonicalObject(next, []));
    });
  }

  /** Removes one finalizer; like a client's write, removing the last one of an object being deleted removes the object. */
  gcRemoveFinalizer(type: ResourceType, key: string, uid: string, finalizer: string): Promise<void> {
    return this.#store.exclusive(async () => {
      const existing = this.#storedWithUid(type, key, uid);
      if (!existing?.object.metadata.finalizers?.includes(finalizer)) return;
      const next = clone(existing.object);
      next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      const meta = next.metadata;
      if (meta.deletionTimestamp && meta.finalizers?.length === 0 && !(type === namespaceType && this.#namespaceHasObjects(meta.name))) {
        await this.#removeObject(type, key);
        return;
      }
      await this.#store.put(storeKeyOf(type), key, canonicalObject(next, []));
    });
  }

  #storedWithUid(type: ResourceType, key: string, uid: string): StoredObject | undefined {
    const stored = this.#store.get(storeKeyOf(type), key);
    return stored?.object.metadata.uid === uid ? stored : undefined;
  }

  // --- helpers ---

  /** Sets `obj`'s managedFields after an Update by the request's manager (none known: left as they are). */
  #recordUpdate(type: ResourceType, version: string, old: KubeObject | undefined, obj: KubeObject, opts: WriteOptions, subresource: WriteSubresource): void {
    const manager = opts.fieldManager ?? (opts.userAgent !== undefined ? managerFromUserAgent(opts.userAgent) : undefined);
    if (manager === undefined) return;
    const apiVersion = apiVersionOf(type, version);
    const entries = managedFieldsAfterUpdate(old, obj, {
      manager,
      apiVersion,
      subresource,
      now: new Date(),
      strategy: strategyFor(obj.apiVersion, obj.kind),
    });
    if (entries) obj.metadata.managedFields = entries;
    else delete obj.metadata.managedFields;
  }

  #dryRunStored(obj: KubeObject, key: string): StoredObject {
    const rv = Number(obj.metadata.resourceVersion ?? '0');
    // A dry-run create has no resourceVersion yet (the placeholder is not a real one).
    if (obj.metadata.resourceVersion === '0') delete obj.metadata.resourceVersion;
    return { object: obj, json: JSON.stringify(obj), rv, key };
  }

  /** Checks the envelope of a body and returns it as an object of this type at `version`. */
  #prepareBody(type: ResourceType, version: string, body: unknown, namespace: string | undefined, urlName: string | undefined): KubeObject {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw badRequest(`the object provided is unrecognized (must be of type ${type.kind})`);
    }
    const obj = body as KubeObject;
    const expectedApiVersion = apiVersionOf(type, version);
    if (obj.apiVersion === undefined || obj.apiVersion === '') obj.apiVersion = expectedApiVersion;
    else if (obj.apiVersion !== expectedApiVersion) {
      throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expectedApiVersion})`);
    }
    if (obj.kind === undefined || obj.kind === '') obj.kind = type.kind;
    else if (obj.kind !== type.kind) throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${type.kind})`);
    if (obj.metadata === undefined || obj.metadata === null) obj.metadata = { name: '' };
    const metaProblem = metadataTypeProblem(obj.metadata);
    if (metaProblem) throw decodeError(type.kind, version, metaProblem);
    const meta = obj.metadata;
    if (type.namespaced) {
      if (!meta.namespace) meta.namespace = namespace ?? '';
      else if (namespace !== undefined && meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
    } else delete meta.namespace;
    if (urlName !== undefined && (meta.name ?? '') !== urlName) {
      throw badRequest(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${urlName})`);
    }
    return obj;
  }

  /** Drops unknown fields (reporting them, and repeated ones, per `fieldValidation`) and checks shapes. */
  #decode(
    type: ResourceType,
    version: string,
    obj: KubeObject,
    fieldValidation: FieldValidation,
    duplicateFields: readonly string[] = [],
  ): { obj: KubeObject; warnings: string[] } {
    const unknown: string[] = [];
    const result = type.decode?.(obj, version);
    if (result) unknown.push(...result.unknownFields);
    const canonical = canonicalObject(obj, unknown);
    const warnings: string[] = [];
    if (unknown.length + duplicateFields.length > 0 && fieldValidation !== 'Ignore') {
      const texts = [...duplicateFields.map((f) => `duplicate field "${f}"`), ...unknown.map((f) => `unknown field "${f}"`)];
      if (fieldValidation === 'Strict') throw badRequest(`${type.kind} in version "${version}" cannot be handled as a ${type.kind}: strict decoding error: ${texts.join(', ')}`);
      warnings.push(...texts);
    }
    return { obj: canonical, warnings };
  }

  #checkNamespaceAcceptsCreate(type: ResourceType, namespace: string, name: string): void {
    if (!namespace) throw badRequest('the server could not find the requested resource: a namespace is required');
    const ns = this.#store.get(namespaceStoreKey, namespace);
    if (!ns) throw notFound(namespaceType, namespace);
    if (ns.object.metadata.deletionTimestamp) {
      throw forbidden(type, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }

  #namespaceHasObjects(namespace: string): boolean {
    const prefix = `${namespace}/`;
    for (const type of this.#registry.all()) {
      if (!type.namespaced) continue;
      for (const stored of this.#store.values(storeKeyOf(type))) if (stored.key.startsWith(prefix)) return true;
    }
    return false;
  }

  async #deleteNamespaceContents(namespace: string): Promise<void> {
    const prefix = `${namespace}/`;
    for (const type of this.#registry.all()) {
      if (!type.namespaced) continue;
      const storeKey = storeKeyOf(type);
      const targets = [...this.#store.values(storeKey)].filter((s) => s.key.startsWith(prefix));
      for (const target of targets) {
        const current = this.#store.get(storeKey, target.key);
        if (current) await this.#deleteOne(type, current, false, undefined);
      }
    }
  }

  /** Removes an object for good, with what follows: a CRD's objects and type, a terminating namespace's end. */
  async #removeObject(type: ResourceType, key: string): Promise<StoredObject | undefined> {
    const storeKey = storeKeyOf(type);
    if (type === crdType) {
      const crd = this.#store.get(storeKey, key);
      if (crd) await this.#unregisterCrd(crd.object);
    }
    const removed = await this.#store.remove(storeKey, key);
    const namespace = removed?.object.metadata.namespace;
    if (type.namespaced && namespace) await this.#finishNamespaceIfEmpty(namespace);
    return removed;
  }

  async #finishNamespaceIfEmpty(namespace: string): Promise<void> {
    const ns = this.#store.get(namespaceStoreKey, namespace);
    if (!ns?.object.metadata.deletionTimestamp || ns.object.metadata.finalizers?.length) return;
    if (this.#namespaceHasObjects(namespace)) return;
    await this.#store.remove(namespaceStoreKey, namespace);
  }

  #registerCrd(crd: KubeObject, previousCrd: KubeObject | undefined): void {
    const storeKey = storeKeyOfCrd(crd);
    const previous = this.#registry.byStoreKey(storeKey);
    if (previousCrd?.metadata.uid) forgetSchemaValidators(previousCrd.metadata.uid);
    const type = customResourceType(crd);
    this.#store.ensureTable(storeKey);
    this.#registry.add(type);
    if (previousCrd) this.applyReadDefaults(type);
    this.#types.typeChanged(type, previous);
  }

  /**
   * Gives the stored objects of a type the defaults their schema declares and they lack (a
   * default added to a CRD after they were written): in memory, without a new resourceVersion or
   * event, as the real server applies defaults when it reads an object. Runs when a CRD changes
   * and after a restart's replay.
   */
  applyReadDefaults(type: ResourceType): void {
    if (!type.defaultOnRead) return;
    const storeKey = storeKeyOf(type);
    for (const stored of [...this.#store.values(storeKey)]) {
      const copy = clone(stored.object);
      type.defaultOnRead(copy, type.storageVersion);
      if (!jsonEqual(copy, stored.object)) this.#store.load(storeKey, stored.key, canonicalObject(copy, []));
    }
  }

  async #unregisterCrd(crd: KubeObject): Promise<void> {
    const storeKey = storeKeyOfCrd(crd);
    for (const stored of [...this.#store.values(storeKey)]) await this.#store.remove(storeKey, stored.key);
    this.#registry.remove(storeKey);
    this.#types.typeRemoved(storeKey);
    this.#store.dropTable(storeKey);
    if (crd.metadata.uid) forgetSchemaValidators(crd.metadata.uid);
  }

  /** Re-registers the types of stored CRDs (after a replay). */
  registerStoredCrds(): void {
    for (const stored of this.#store.values(crdStoreKey)) {
      this.#registry.add(customResourceType(stored.object));
      this.#store.ensureTable(storeKeyOfCrd(stored.object));
    }
  }
}
