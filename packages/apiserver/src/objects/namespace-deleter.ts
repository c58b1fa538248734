/**
 * Namespace deletion in the background, as kube-controller-manager's namespace controller does it.
 *
 * Flow: a DELETE only marks the namespace (`deletionTimestamp`, phase `Terminating`; creates in it
 * are refused from then on) and is answered at once. The deleter sees that change (it receives
 * every applied change, as the real controller watches namespaces) and works on the namespace one
 * `setImmediate` turn later, outside any request:
 * 1. every object in the namespace is deleted through the ordinary delete path with
 *    `propagationPolicy: Background`, in slices of at most {@link NamespaceDeleterOptions.sliceObjects}
 *    objects or {@link NamespaceDeleterOptions.sliceMs} ms; between slices it yields (`setImmediate`),
 *    so other requests are served meanwhile; each delete takes the store's write turn on its own;
 * 2. what is left (objects held by finalizers, deletes that failed) is written into the namespace's
 *    status conditions, as upstream does (see `namespace-conditions.ts`);
 * 3. once nothing is left, the `kubernetes` entry leaves `spec.finalizers`; with no finalizers of
 *    either kind left, that write removes the namespace (watchers see MODIFIED, then DELETED).
 * Work is queued again whenever an object of a terminating namespace goes or changes its
 * finalizers, and whenever the namespace's own finalizers change. A failed delete (a log error) is
 * reported in the `NamespaceDeletionContentFailure` condition and retried on the next such change
 * or at the next start. At start (after a replay) every terminating namespace is queued: a deletion
 * cut short by a stop or a crash is finished.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { ChangeEvent } from '../storage/change-event.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { ResourceRegistry } from '../types/resource-registry.js';
import { storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { jsonEqual } from '../json-value.js';
import { timestampText } from '../timestamp-text.js';
import { DeferredDrainQueue } from '../deferred-drain-queue.js';
import { nextTurn } from '../next-turn.js';
import { applyNamespaceConditions, emptyTally, remainingCount } from './namespace-conditions.js';
import type { ContentTally } from './namespace-conditions.js';
import { kubernetesFinalizer, namespaceStoreKey, specFinalizersOf, terminatingPhase } from './namespace-contents.js';
import { contentDeleteChanges } from './namespace-writes.js';

/** The writes the deleter makes (implemented by `ObjectService`); each does nothing when the object is gone or its uid changed. */
export interface NamespaceDeleterWrites {
  deleteNamespaceContent(type: ResourceType, key: string, uid: string): Promise<void>;
  editTerminatingNamespace(name: string, uid: string, edit: (ns: KubeObject) => KubeObject | undefined): Promise<void>;
}

/** Options of {@link NamespaceDeleter}. */
export interface NamespaceDeleterOptions {
  registry: ResourceRegistry;
  store: ObjectStore;
  writes: NamespaceDeleterWrites;
  /** Receives a line per failed pass. */
  logger: (line: string) => void;
  /** Objects looked at per slice before yielding to other work. Default 100. */
  sliceObjects?: number;
  /** Milliseconds of work per slice before yielding to other work. Default 5. */
  sliceMs?: number;
}

const defaultSliceObjects = 100;
const defaultSliceMs = 5;

/** The resource as upstream's conditions name it: `configmaps.` for the core group, `widgets.example.com`. */
function resourceName(type: ResourceType): string {
  return `${type.plural}.${type.group}`;
}

function sameFinalizers(a: KubeObject, b: KubeObject): boolean {
  return jsonEqual(a.metadata.finalizers ?? [], b.metadata.finalizers ?? []) && jsonEqual(specFinalizersOf(a), specFinalizersOf(b));
}

/** The namespace deleter (see the file comment). */
export class NamespaceDeleter {
  readonly #registry: ResourceRegistry;
  readonly #store: ObjectStore;
  readonly #writes: NamespaceDeleterWrites;
  readonly #logger: (line: string) => void;
  readonly #sliceObjects: number;
  readonly #sliceMs: number;
  /** Namespaces to work on, in order; a repeat goes last. */
  readonly #queue: DeferredDrainQueue<string>;

  constructor(options: NamespaceDeleterOptions) {
    this.#registry = options.registry;
    this.#store = options.store;
    this.#writes = options.writes;
    this.#logger = options.logger;
    this.#sliceObjects = options.sliceObjects ?? defaultSliceObjects;
    this.#sliceMs = options.sliceMs ?? defaultSliceMs;
    this.#queue = new DeferredDrainQueue<string>({
      process: (name) => this.#process(name),
      onError: (name, err) => this.#logger(`kubeloop-apiserver: deleting namespace ${name} failed: ${(err as Error).message}`),
      requeueToBack: true,
      waitForStart: true,
    });
  }

  /** Queues every terminating namespace (after a replay) and starts working. */
  start(): void {
    for (const stored of this.#store.values(namespaceStoreKey)) if (stored.object.metadata.deletionTimestamp) this.#enqueue(stored.key);
    this.#queue.start();
  }

  /** Stops taking work; resolves once the slice in progress is done (the rest waits for the next start). */
  async stop(): Promise<void> {
    await this.#queue.stop();
  }

  /** Receives every applied change, in resourceVersion order. */
  observe(storeKey: string, event: ChangeEvent): void {
    const current = event.current.object;
    if (storeKey === namespaceStoreKey) {
      const previous = event.previous?.object;
      // Its own status writes do not requeue a namespace; a new deletion or a finalizer change does.
      if (event.type !== 'DELETED' && current.metadata.deletionTimestamp && (!previous?.metadata.deletionTimestamp || !sameFinalizers(previous, current))) {
        this.#enqueue(current.metadata.name);
      }
      return;
    }
    const namespace = current.metadata.namespace;
    if (!namespace || !this.#store.get(namespaceStoreKey, namespace)?.object.metadata.deletionTimestamp) return;
    const previous = event.previous?.object;
    if (event.type === 'DELETED' || !previous || !jsonEqual(previous.metadata.finalizers ?? [], current.metadata.finalizers ?? [])) this.#enqueue(namespace);
  }

  #enqueue(name: string): void {
    this.#queue.add(name);
  }

  /** One pass of the namespace controller over a terminating namespace. */
  async #process(name: string): Promise<void> {
    const ns = this.#store.get(namespaceStoreKey, name)?.object;
    const uid = ns?.metadata.uid;
    if (!ns || uid === undefined || !ns.metadata.deletionTimestamp) return;
    if ((ns.status as { phase?: unknown } | undefined)?.phase !== terminatingPhase) {
      await this.#writes.editTerminatingNamespace(name, uid, (edited) => ({ ...edited, status: { ...(edited.status as object | undefined), phase: terminatingPhase } }));
    }
    const tally = await this.#deleteContent(name);
    if (!tally) return;
    await this.#writes.editTerminatingNamespace(name, uid, (edited) => {
      const status = { ...(edited.status as Record<string, unknown> | undefined) };
      return applyNamespaceConditions(status, tally, timestampText()) ? { ...edited, status } : undefined;
    });
    if (remainingCount(tally) > 0) return;
    // Empty: the namespace controller's finalize; the write that leaves no finalizer removes the namespace.
    await this.#writes.editTerminatingNamespace(name, uid, (edited) => {
      const finalizers = specFinalizersOf(edited);
      if (!finalizers.includes(kubernetesFinalizer)) return undefined;
      return { ...edited, spec: { ...(edited.spec as object | undefined), finalizers: finalizers.filter((f) => f !== kubernetesFinalizer) } };
    });
  }

  /** Deletes what the namespace holds, in slices; returns what is left, or undefined when stopped. */
  async #deleteContent(namespace: string): Promise<ContentTally | undefined> {
    const tally = emptyTally();
    let looked = 0;
    let sliceStart = performance.now();
    for (const type of this.#registry.all()) {
      if (!type.namespaced) continue;
      const storeKey = storeKeyOf(type);
      for (const key of this.#store.keysInNamespace(storeKey, namespace)) {
        if (++looked > this.#sliceObjects || performance.now() - sliceStart >= this.#sliceMs) {
          await nextTurn();
          looked = 1;
          sliceStart = performance.now();
        }
        if (this.#queue.stopped) return undefined;
        const stored = this.#store.get(storeKey, key);
        const uid = stored?.object.metadata.uid;
        if (!stored || uid === undefined) continue;
        if (contentDeleteChanges(stored.object)) {
          try {
            await this.#writes.deleteNamespaceContent(type, key, uid);
          } catch (err) {
            tally.failures.set(resourceName(type), (err as Error).message);
          }
        }
        const left = this.#store.get(storeKey, key)?.object;
        if (left) this.#count(tally, type, left);
      }
    }
    return tally;
  }

  #count(tally: ContentTally, type: ResourceType, left: KubeObject): void {
    const resource = resourceName(type);
    tally.remaining.set(resource, (tally.remaining.get(resource) ?? 0) + 1);
    for (const finalizer of left.metadata.finalizers ?? []) tally.finalizers.set(finalizer, (tally.finalizers.get(finalizer) ?? 0) + 1);
  }
}
