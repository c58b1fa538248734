/**
 * What the server does with objects, independent of HTTP: create, read, list, update, patch and
 * delete, with Kubernetes' rules for each. HTTP handlers parse a request, call one method and
 * write the result; failures are thrown as `StatusError`s (`status-error.ts`).
 *
 * The request path: `request-handler.ts` -> this facade -> one file per operation:
 * `read-objects.ts` (get, list), `create-object.ts`, `update-object.ts`, `patch-object.ts`,
 * `scale-object.ts`, `delete-object.ts`; a write's body goes through `incoming-object.ts` and
 * `field-manager.ts`; an object's end through `remove-object.ts`, which finishes namespaces
 * (`namespace-contents.ts`) and CRDs (`crd-types.ts`); the garbage collector writes through `gc-writes.ts`, the namespace deleter through `namespace-writes.ts`.
 *
 * Rules (each tested in `object-semantics.test.ts` and the other HTTP tests):
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
 * 7. Deleting a namespace marks it `Terminating` at once; the namespace deleter
 *    (`namespace-deleter.ts`) deletes its objects in the background, then the namespace once they
 *    are gone; deleting a CRD deletes its objects and stops serving the type.
 * 8. `propagationPolicy` Orphan / Foreground add the `orphan` / `foregroundDeletion` finalizer
 *    (Background removes both), also on an object already being deleted; the garbage collector
 *    (`garbage-collector.ts`) does the rest through the `gc*` methods here.
 */
import type { KubeObject, OwnerReference } from '@kubeloop/resource';
import type { StoredObject } from '../storage/change-event.js';
import type { PropagationPolicy } from '../http/delete-options.js';
import type { ListOptions } from '../http/list-options.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { ResourceRegistry } from '../types/resource-registry.js';
import type { ResourceType } from '../types/resource-type.js';
import { bindPod } from './bind-pod.js';
import type { PodBinding } from './bind-pod.js';
import { createObject } from './create-object.js';
import { applyReadDefaults, registerStoredCrds } from './crd-types.js';
import { deleteCollection, deleteObject } from './delete-object.js';
import type { DeleteRequest, DeleteResult } from './delete-object.js';
import { gcDelete, gcEditOwnerReferences, gcRemoveFinalizer } from './gc-writes.js';
import { deleteNamespaceContent, editTerminatingNamespace } from './namespace-writes.js';
import type { CollectionTarget, GracefulDeletion, ObjectContext, ObjectTarget, TypeListener } from './object-context.js';
import { patchObject } from './patch-object.js';
import type { PatchOptions } from './patch-object.js';
import { getObject, listPage } from './read-objects.js';
import type { ListPage } from './read-objects.js';
import { getScale, updateScale } from './scale-object.js';
import { updateObject } from './update-object.js';
import type { WriteOptions, WriteResult, WriteSubresource } from './write-options.js';
import type { OffLoopWorker } from '../worker/off-loop-worker.js';

/** Objects, with Kubernetes' write rules, over an {@link ObjectStore}. */
export class ObjectService {
  readonly #ctx: ObjectContext;

  /** @param options.gracefulDeletion how Pods are deleted gracefully; default: none (every delete is at once, as envtest). */
  constructor(registry: ResourceRegistry, store: ObjectStore, types: TypeListener, options: { gracefulDeletion?: GracefulDeletion | undefined; offLoop?: OffLoopWorker | undefined } = {}) {
    this.#ctx = { registry, store, types, gracefulDeletion: options.gracefulDeletion, offLoop: options.offLoop };
  }

  // --- reads ---

  /** The stored object; 404 when absent. */
  get(type: ResourceType, namespace: string | undefined, name: string): StoredObject {
    return getObject(this.#ctx, type, namespace, name);
  }

  /** The objects of one list page and the list's metadata (selectors, pagination and resourceVersion rules applied). */
  listPage(type: ResourceType, namespace: string | undefined, opts: ListOptions): ListPage {
    return listPage(this.#ctx, type, namespace, opts);
  }

  // --- writes ---

  /** POST: creates an object. */
  create(target: CollectionTarget, body: unknown, opts: WriteOptions): Promise<WriteResult> {
    return createObject(this.#ctx, target, body, opts);
  }

  /** PUT (main resource, `/status` or a namespace's `/finalize`). */
  update(target: ObjectTarget, body: unknown, opts: WriteOptions & { readonly subresource: WriteSubresource }): Promise<WriteResult> {
    return updateObject(this.#ctx, target, body, opts);
  }

  /** PATCH (main resource or `/status`), by media type; apply creates a missing object. */
  patch(target: ObjectTarget, body: string, mediaType: string, opts: PatchOptions): Promise<WriteResult> {
    return patchObject(this.#ctx, target, body, mediaType, opts);
  }

  /** GET of `/scale`: the object's Scale. */
  getScale(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    return getScale(this.#ctx, type, namespace, name);
  }

  /**
   * PUT or PATCH of `/scale`: `edit` turns the current Scale into the requested one, whose
   * `spec.replicas` becomes the object's (a resourceVersion it carries must be current). Answers the new Scale.
   */
  updateScale(target: ObjectTarget, edit: (current: KubeObject) => unknown, opts: WriteOptions): Promise<KubeObject> {
    return updateScale(this.#ctx, target, edit, opts);
  }

  /** Binds a Pod to a node (the simulated scheduler's write; see `bind-pod.ts`). */
  bindPod(target: ObjectTarget, binding: PodBinding, opts: WriteOptions): Promise<WriteResult> {
    return bindPod(this.#ctx, target, binding, opts);
  }

  /** DELETE of one object. */
  delete(target: ObjectTarget, request: DeleteRequest): Promise<DeleteResult> {
    return deleteObject(this.#ctx, target, request);
  }

  /** DELETE of a collection: every selected object, as individual deletes. Returns the list body. */
  deleteCollection(target: CollectionTarget, opts: ListOptions, request: DeleteRequest): Promise<string> {
    return deleteCollection(this.#ctx, target, opts, request);
  }

  // --- the garbage collector's writes (see garbage-collector.ts) ---

  /** Deletes an object as the garbage collector does: the ordinary delete path with `policy`. */
  gcDelete(type: ResourceType, key: string, uid: string, policy: PropagationPolicy): Promise<void> {
    return gcDelete(this.#ctx, type, key, uid, policy);
  }

  /** Rewrites an object's `ownerReferences` (dropping references to gone owners, unblocking). No change, no write. */
  gcEditOwnerReferences(type: ResourceType, key: string, uid: string, edit: (refs: readonly OwnerReference[]) => OwnerReference[]): Promise<void> {
    return gcEditOwnerReferences(this.#ctx, type, key, uid, edit);
  }

  /** Removes one finalizer; like a client's write, removing the last one of an object being deleted removes the object. */
  gcRemoveFinalizer(type: ResourceType, key: string, uid: string, finalizer: string): Promise<void> {
    return gcRemoveFinalizer(this.#ctx, type, key, uid, finalizer);
  }

  // --- the namespace deleter's writes (see namespace-deleter.ts) ---

  /** Deletes one object of a terminating namespace with `propagationPolicy: Background`. */
  deleteNamespaceContent(type: ResourceType, key: string, uid: string): Promise<void> {
    return deleteNamespaceContent(this.#ctx, type, key, uid);
  }

  /** Rewrites a terminating namespace by `edit`; removes it when it is left empty and without finalizers. */
  editTerminatingNamespace(name: string, uid: string, edit: (ns: KubeObject) => KubeObject | undefined): Promise<void> {
    return editTerminatingNamespace(this.#ctx, name, uid, edit);
  }

  // --- served types ---

  /** Gives the stored objects of a type the schema defaults they lack (see `crd-types.ts`). */
  applyReadDefaults(type: ResourceType): void {
    applyReadDefaults(this.#ctx, type);
  }

  /** Re-registers the types of stored CRDs (after a replay). */
  registerStoredCrds(): void {
    registerStoredCrds(this.#ctx);
  }
}
