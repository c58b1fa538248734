/**
 * Owner references as controller-runtime's `controllerutil` writes them: `ownerReferenceFor`,
 * `setControllerReference`, `setOwnerReference`, `removeOwnerReference`, `controllerOf`. An owned object
 * is garbage-collected when its owner is deleted; the controller reference also tells
 * `enqueueRequestForOwner` (and `kubectl`) which object manages it.
 */
import { KubeloopError } from './errors.js';
import { parseApiVersion } from './object.js';
import type { KubeObject, OwnerReference } from './object.js';

/** An owner reference that cannot be set; `code` is `OwnerReferenceError` or `AlreadyOwned`. */
export class OwnerReferenceError extends KubeloopError {
  constructor(code: 'OwnerReferenceError' | 'AlreadyOwned', message: string) {
    super(code, message);
  }
}

/** Options of {@link ownerReferenceFor}. */
export interface OwnerReferenceOptions {
  /** Mark the owner as the managing controller (at most one per object). Default: false. */
  controller?: boolean | undefined;
  /** Foreground deletion of the owner waits for this object. Default: false. */
  blockOwnerDeletion?: boolean | undefined;
}

/** What an owner must have: apiVersion, kind, name and uid (a persisted object). */
export type Owner = Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>;

/**
 * The owner reference to `owner` (`apiVersion`, `kind`, `name`, `uid`, and `controller` /
 * `blockOwnerDeletion` when set in `options`).
 * @throws OwnerReferenceError when the owner has no name or no uid (it was not read from the server).
 */
export function ownerReferenceFor(owner: Owner, options: OwnerReferenceOptions = {}): OwnerReference {
  const { name, uid } = owner.metadata;
  if (!name || !uid) {
    throw new OwnerReferenceError('OwnerReferenceError', `${owner.kind} ${name || '(no name)'}: an owner needs a name and a uid: use the object as read from or returned by the API server`);
  }
  const reference: OwnerReference = { apiVersion: owner.apiVersion, kind: owner.kind, name, uid };
  if (options.controller !== undefined) reference.controller = options.controller;
  if (options.blockOwnerDeletion !== undefined) reference.blockOwnerDeletion = options.blockOwnerDeletion;
  return reference;
}

/**
 * Makes `owner` the controller of `object` (`controller: true`, `blockOwnerDeletion: true`), replacing an
 * existing reference to the same owner (same group, kind and name) and keeping every other one.
 * Modifies `object`.
 * @throws OwnerReferenceError code `AlreadyOwned` when another object is its controller; code
 *   `OwnerReferenceError` for a cluster-scoped object with a namespaced owner, an owner in another
 *   namespace, or an owner without name or uid.
 */
export function setControllerReference(owner: Owner, object: KubeObject): void {
  const reference = ownerReferenceFor(owner, { controller: true, blockOwnerDeletion: true });
  checkOwnerScope(owner, object);
  const current = controllerOf(object);
  if (current !== undefined && !sameOwner(current, reference)) {
    throw new OwnerReferenceError(
      'AlreadyOwned',
      `${object.kind} ${object.metadata.name} is already owned by another controller ${current.kind} ${current.name}`,
    );
  }
  upsert(object, reference);
}

/**
 * Adds `owner` as a non-controller owner of `object` (replacing an existing reference to the same
 * owner, whose `controller` flag is kept). Modifies `object`.
 * @throws OwnerReferenceError as {@link setControllerReference}, except `AlreadyOwned`.
 */
export function setOwnerReference(owner: Owner, object: KubeObject, options: Pick<OwnerReferenceOptions, 'blockOwnerDeletion'> = {}): void {
  const reference = ownerReferenceFor(owner, options);
  checkOwnerScope(owner, object);
  const existing = object.metadata.ownerReferences?.find((r) => sameOwner(r, reference));
  if (existing?.controller !== undefined) reference.controller = existing.controller;
  upsert(object, reference);
}

/** Removes the references to `owner` (same group, kind and name) from `object`; returns whether there was one. */
export function removeOwnerReference(owner: Owner, object: KubeObject): boolean {
  const references = object.metadata.ownerReferences;
  if (references === undefined) return false;
  const target = { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name };
  const kept = references.filter((r) => !sameOwner(r, target));
  if (kept.length === references.length) return false;
  if (kept.length === 0) delete object.metadata.ownerReferences;
  else object.metadata.ownerReferences = kept;
  return true;
}

/** The owner reference marked `controller: true`, if any (`metav1.GetControllerOf`). */
export function controllerOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** The rules of the garbage collector: no namespaced owner for a cluster-scoped object, no owner in another namespace. */
function checkOwnerScope(owner: Owner, object: KubeObject): void {
  const ownerNamespace = owner.metadata.namespace;
  if (!ownerNamespace) return;
  const objectNamespace = object.metadata.namespace;
  if (!objectNamespace) {
    throw new OwnerReferenceError('OwnerReferenceError', `cluster-scoped ${object.kind} ${object.metadata.name} must not have a namespace-scoped owner, owner's namespace ${ownerNamespace}`);
  }
  if (objectNamespace !== ownerNamespace) {
    throw new OwnerReferenceError(
      'OwnerReferenceError',
      `cross-namespace owner references are disallowed, owner's namespace ${ownerNamespace}, ${object.kind} ${object.metadata.name}'s namespace ${objectNamespace}`,
    );
  }
}

/** Same owner: same group (any version), kind and name, as controller-runtime compares them. */
function sameOwner(a: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name'>, b: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name'>): boolean {
  return parseApiVersion(a.apiVersion).group === parseApiVersion(b.apiVersion).group && a.kind === b.kind && a.name === b.name;
}

function upsert(object: KubeObject, reference: OwnerReference): void {
  const references = object.metadata.ownerReferences ?? [];
  const index = references.findIndex((r) => sameOwner(r, reference));
  if (index >= 0) references[index] = reference;
  else references.push(reference);
  object.metadata.ownerReferences = references;
}
