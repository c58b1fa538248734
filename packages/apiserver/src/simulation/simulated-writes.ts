/**
 * How the simulation writes: through the same `ObjectService` paths as a client (validation,
 * managedFields under the writer's manager name, generation, finalizers, watch events, the log),
 * never into the store behind its back. Each write names its manager as upstream's components do
 * (`kube-controller-manager`, `kubelet`, `kube-scheduler`), so managedFields read as on a cluster.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { StoredObject } from '../storage/change-event.js';
import { isStatusError } from '../http/status-error.js';
import { cloneJson, jsonEqual } from '../json-value.js';
import type { ObjectService } from '../objects/object-service.js';
import type { ResourceType } from '../types/resource-type.js';

/** Writes of one simulated component. */
export class SimulatedWrites {
  readonly #service: ObjectService;
  readonly #manager: string;

  /** @param manager the `fieldManager` of every write (`kube-controller-manager`, `kubelet`...). */
  constructor(service: ObjectService, manager: string) {
    this.#service = service;
    this.#manager = manager;
  }

  /** The same writes under another manager name. */
  as(manager: string): SimulatedWrites {
    return new SimulatedWrites(this.#service, manager);
  }

  /** Creates an object; undefined when one of that name exists already (the caller syncs again on its event). */
  async create(type: ResourceType, object: KubeObject): Promise<StoredObject | undefined> {
    try {
      const result = await this.#service.create({ type, version: type.storageVersion, namespace: object.metadata.namespace }, object, this.#options());
      return result.stored;
    } catch (err) {
      if (isStatusError(err) && err.status.code === 409) return undefined;
      throw err;
    }
  }

  /**
   * Updates the main resource from `stored` (edited in a copy): nothing is written when `edit`
   * changes nothing; a stale `stored` is a 409 the controller queue retries on fresh state.
   */
  update(type: ResourceType, stored: StoredObject, edit: (object: KubeObject) => void): Promise<StoredObject> {
    return this.#update(type, stored, edit, undefined);
  }

  /** Updates `/status` (or the whole object for a type without the subresource), as {@link update}. */
  updateStatus(type: ResourceType, stored: StoredObject, edit: (object: KubeObject) => void): Promise<StoredObject> {
    return this.#update(type, stored, edit, type.statusSubresource ? 'status' : undefined);
  }

  /**
   * Deletes the object `stored` is (uid precondition); nothing when it is gone already. A Pod on a
   * simulated node is deleted gracefully unless `gracePeriodSeconds` is 0 (the kubelet's final delete).
   */
  async delete(type: ResourceType, stored: StoredObject, options: { gracePeriodSeconds?: number } = {}): Promise<void> {
    const meta = stored.object.metadata;
    try {
      await this.#service.delete(
        { type, version: type.storageVersion, namespace: meta.namespace, name: meta.name },
        { preconditions: { uid: meta.uid }, dryRun: false, propagationPolicy: 'Background', gracePeriodSeconds: options.gracePeriodSeconds },
      );
    } catch (err) {
      if (isStatusError(err) && (err.status.code === 404 || err.status.code === 409)) return;
      throw err;
    }
  }

  /** Binds a Pod to a node (`spec.nodeName` and `PodScheduled`); undefined when it is bound, deleted or replaced meanwhile. */
  async bind(type: ResourceType, stored: StoredObject, nodeName: string, time: string): Promise<StoredObject | undefined> {
    const meta = stored.object.metadata;
    try {
      const target = { type, version: type.storageVersion, namespace: meta.namespace, name: meta.name };
      const result = await this.#service.bindPod(target, { uid: meta.uid ?? '', nodeName, time }, this.#options());
      return result.stored;
    } catch (err) {
      if (isStatusError(err) && (err.status.code === 404 || err.status.code === 409)) return undefined;
      throw err;
    }
  }

  async #update(type: ResourceType, stored: StoredObject, edit: (object: KubeObject) => void, subresource: 'status' | undefined): Promise<StoredObject> {
    const next = cloneJson(stored.object);
    edit(next);
    if (jsonEqual(next, stored.object)) return stored;
    const meta = next.metadata;
    const target = { type, version: type.storageVersion, namespace: meta.namespace, name: meta.name };
    const result = await this.#service.update(target, next, { ...this.#options(), subresource });
    return result.stored;
  }

  #options(): { dryRun: false; fieldValidation: 'Ignore'; fieldManager: string } {
    return { dryRun: false, fieldValidation: 'Ignore', fieldManager: this.#manager };
  }
}
