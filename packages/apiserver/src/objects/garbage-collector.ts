/**
 * Garbage collection by `metadata.ownerReferences`, as kube-controller-manager's garbage collector
 * does it, for every kind this server stores.
 *
 * Flow: the collector sees every applied change (as the real one sees its informers' events) and
 * keeps an index owner uid -> dependents. Work is queued and done shortly after, never inside the
 * request that caused it (one `setImmediate` turn later, then one item after the other):
 * - an owner removed from storage: each dependent is checked. A dependent is checked by looking
 *   up each owner by kind, name and the dependent's namespace and comparing uids: with an owner
 *   still there, references to gone owners are removed; with none, the dependent is deleted through
 *   the ordinary delete path (its finalizers, watch events and the log apply), which cascades.
 * - an object created or changed with a new owner reference: it is checked the same way, so an
 *   object whose owner does not exist is collected.
 * - an object being deleted with the `orphan` finalizer: its uid is removed from every dependent,
 *   then the finalizer.
 * - an object being deleted with `foregroundDeletion`: its dependents are deleted (those of them
 *   with dependents of their own in the foreground too); once no dependent with
 *   `blockOwnerDeletion: true` is left, the finalizer is removed.
 * A reference this server cannot resolve (a kind it does not serve, unless that owner was seen
 * removed; a namespaced owner of a cluster-scoped object) keeps the dependent, as the real
 * collector cannot verify such an owner is gone; it is checked again whenever the served types change.
 *
 * Cost on the write path: two property reads per change, more only for objects with owner
 * references or being deleted.
 */
import type { ObjectMeta, OwnerReference } from '@kubeloop/resource';
import type { ChangeEvent, StoredObject } from '../storage/change-event.js';
import { foregroundFinalizer, orphanFinalizer } from '../http/delete-options.js';
import type { PropagationPolicy } from '../http/delete-options.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { ResourceRegistry } from '../types/resource-registry.js';
import { storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { DeferredDrainQueue } from '../deferred-drain-queue.js';

/** The writes the collector makes (implemented by `ObjectService`); each does nothing when the object is gone or its uid changed. */
export interface GarbageCollectorWrites {
  gcDelete(type: ResourceType, key: string, uid: string, policy: PropagationPolicy): Promise<void>;
  gcEditOwnerReferences(type: ResourceType, key: string, uid: string, edit: (refs: readonly OwnerReference[]) => OwnerReference[]): Promise<void>;
  gcRemoveFinalizer(type: ResourceType, key: string, uid: string, finalizer: string): Promise<void>;
}

/** What to do with one object. */
type WorkKind = 'dependent' | 'foreground' | 'orphan';

/** Owner uids seen removed, kept to resolve references to kinds no longer served (the real collector's absent-owner cache). */
const absentOwnersKept = 10_000;

/** `storeKey` and object key in one string (neither contains a newline). */
function locationOf(storeKey: string, key: string): string {
  return `${storeKey}\n${key}`;
}

function splitLocation(location: string): { storeKey: string; key: string } {
  const nl = location.indexOf('\n');
  return { storeKey: location.slice(0, nl), key: location.slice(nl + 1) };
}

/** One queued piece of work as one string, `kind location` (a kind has no space). */
function workId(kind: WorkKind, location: string): string {
  return `${kind} ${location}`;
}

function splitWork(id: string): { kind: WorkKind; location: string } {
  const space = id.indexOf(' ');
  return { kind: id.slice(0, space) as WorkKind, location: id.slice(space + 1) };
}

function hasFinalizer(meta: ObjectMeta, finalizer: string): boolean {
  return meta.finalizers?.includes(finalizer) === true;
}

/** The uids of an object's owner references (malformed entries skipped: data from older logs is not validated). */
function ownerUids(refs: readonly OwnerReference[] | undefined): Set<string> {
  const uids = new Set<string>();
  if (refs) for (const ref of refs) if (typeof ref?.uid === 'string' && ref.uid) uids.add(ref.uid);
  return uids;
}

/** How an owner reference resolves. */
type OwnerState = 'solid' | 'dangling' | 'waiting' | 'unresolved';

/** The garbage collector. */
export class GarbageCollector {
  readonly #registry: ResourceRegistry;
  readonly #store: ObjectStore;
  readonly #writes: GarbageCollectorWrites;
  readonly #logger: (line: string) => void;
  /** Owner uid -> locations of the objects referencing it. */
  readonly #dependents = new Map<string, Set<string>>();
  /** Owners being deleted in the foreground: uid -> location. */
  readonly #foregroundOwners = new Map<string, string>();
  readonly #absentOwners = new Set<string>();
  /** Dependents with a reference that could not be resolved: checked again when the served types change. */
  readonly #unresolved = new Set<string>();
  /** Pending work by `kind location`; a repeat goes last, as the state it will read is the newest anyway. */
  readonly #queue: DeferredDrainQueue<string>;

  constructor(options: { registry: ResourceRegistry; store: ObjectStore; writes: GarbageCollectorWrites; logger: (line: string) => void }) {
    this.#registry = options.registry;
    this.#store = options.store;
    this.#writes = options.writes;
    this.#logger = options.logger;
    this.#queue = new DeferredDrainQueue<string>({
      process: (id) => this.#process(splitWork(id)),
      // A failed write (a log error): the real collector retries; here the next change of the object does.
      onError: (id, err) => this.#logger(`kubeloop-apiserver: garbage collection of ${splitWork(id).location.replace('\n', ' ')} failed: ${(err as Error).message}`),
      requeueToBack: true,
      waitForStart: true,
    });
  }

  /**
   * Indexes every stored object (after a replay) and queues whatever a collector that was not
   * running would have done: dependents whose owners are gone, orphan and foreground deletions.
   * Work queued before this waits for it.
   */
  start(): void {
    for (const type of this.#registry.all()) {
      const storeKey = storeKeyOf(type);
      for (const stored of this.#store.values(storeKey)) {
        const meta = stored.object.metadata;
        const location = locationOf(storeKey, stored.key);
        for (const uid of ownerUids(meta.ownerReferences)) this.#index(uid, location);
        if (meta.ownerReferences) this.#enqueue('dependent', location);
        if (meta.deletionTimestamp) this.#observeDeleting(meta, undefined, location);
      }
    }
    this.#queue.start();
  }

  /** Stops taking work; resolves once the item in progress is done. */
  async stop(): Promise<void> {
    await this.#queue.stop();
  }

  /** Re-checks dependents whose references could not be resolved (a type was added or changed). */
  typesChanged(): void {
    for (const location of this.#unresolved) this.#enqueue('dependent', location);
    this.#unresolved.clear();
  }

  /** Receives every applied change, in resourceVersion order. */
  observe(storeKey: string, event: ChangeEvent): void {
    const meta = event.current.object.metadata;
    const previous = event.previous?.object.metadata;
    const deleted = event.type === 'DELETED';
    if (meta.ownerReferences !== undefined || previous?.ownerReferences !== undefined) {
      this.#reindex(locationOf(storeKey, event.current.key), previous?.ownerReferences, deleted ? undefined : meta.ownerReferences, meta);
    }
    if (deleted) {
      const uid = meta.uid;
      if (uid === undefined) return;
      this.#foregroundOwners.delete(uid);
      const dependents = this.#dependents.get(uid);
      if (dependents) {
        this.#rememberAbsent(uid);
        for (const location of dependents) this.#enqueue('dependent', location);
      }
      return;
    }
    if (meta.deletionTimestamp) this.#observeDeleting(meta, previous, locationOf(storeKey, event.current.key));
    else if (meta.uid !== undefined && this.#foregroundOwners.size > 0) this.#foregroundOwners.delete(meta.uid);
  }

  /** An object being deleted: start orphaning or foreground deletion when it newly asks for them. */
  #observeDeleting(meta: ObjectMeta, previous: ObjectMeta | undefined, location: string): void {
    const uid = meta.uid;
    if (uid === undefined) return;
    if (hasFinalizer(meta, foregroundFinalizer)) {
      if (previous?.deletionTimestamp === undefined || !hasFinalizer(previous, foregroundFinalizer)) {
        this.#foregroundOwners.set(uid, location);
        for (const dependent of this.#dependents.get(uid) ?? []) this.#enqueue('dependent', dependent);
        this.#enqueue('foreground', location);
      }
    } else this.#foregroundOwners.delete(uid);
    if (hasFinalizer(meta, orphanFinalizer) && (previous?.deletionTimestamp === undefined || !hasFinalizer(previous, orphanFinalizer))) {
      this.#enqueue('orphan', location);
    }
  }

  #reindex(location: string, before: readonly OwnerReference[] | undefined, after: readonly OwnerReference[] | undefined, meta: ObjectMeta): void {
    const old = ownerUids(before);
    const now = ownerUids(after);
    let added = false;
    for (const uid of old) {
      if (!now.has(uid)) this.#unindex(uid, location);
      // A foreground owner waits for its blocking dependents: re-check it when one changes or goes.
      const owner = this.#foregroundOwners.get(uid);
      if (owner !== undefined) this.#enqueue('foreground', owner);
    }
    for (const uid of now) {
      if (old.has(uid)) continue;
      this.#index(uid, location);
      added = true;
    }
    if (added && !meta.deletionTimestamp) this.#enqueue('dependent', location);
  }

  #index(uid: string, location: string): void {
    let set = this.#dependents.get(uid);
    if (!set) this.#dependents.set(uid, (set = new Set()));
    set.add(location);
  }

  #unindex(uid: string, location: string): void {
    const set = this.#dependents.get(uid);
    if (!set) return;
    set.delete(location);
    if (set.size === 0) this.#dependents.delete(uid);
  }

  #rememberAbsent(uid: string): void {
    this.#absentOwners.add(uid);
    if (this.#absentOwners.size > absentOwnersKept) {
      const oldest = this.#absentOwners.values().next().value;
      if (oldest !== undefined) this.#absentOwners.delete(oldest);
    }
  }

  #enqueue(kind: WorkKind, location: string): void {
    this.#queue.add(workId(kind, location));
  }

  async #process({ kind, location }: { kind: WorkKind; location: string }): Promise<void> {
    const { storeKey, key } = splitLocation(location);
    const type = this.#registry.byStoreKey(storeKey);
    const stored = this.#store.get(storeKey, key);
    if (!type || !stored) return;
    if (kind === 'dependent') await this.#checkDependent(type, stored, location);
    else if (kind === 'foreground') await this.#processForeground(type, stored);
    else await this.#processOrphan(type, stored);
  }

  /** The real collector's `attemptToDeleteItem`. */
  async #checkDependent(type: ResourceType, stored: StoredObject, location: string): Promise<void> {
    const meta = stored.object.metadata;
    const uid = meta.uid;
    if (uid === undefined) return;
    if (meta.deletionTimestamp) {
      if (hasFinalizer(meta, foregroundFinalizer)) await this.#processForeground(type, stored);
      return;
    }
    const refs = meta.ownerReferences;
    if (!refs?.length) return;
    const solid: string[] = [];
    const gone = new Set<string>();
    let waiting = false;
    for (const ref of refs) {
      const state = this.#ownerState(ref, type.namespaced, meta.namespace);
      if (state === 'unresolved') {
        this.#unresolved.add(location);
        return;
      }
      if (state === 'solid') solid.push(ref.uid);
      else gone.add(ref.uid);
      if (state === 'waiting') waiting = true;
    }
    this.#unresolved.delete(location);
    if (solid.length > 0) {
      // Another owner still holds it: only the references to gone (or foreground-deleting) owners go.
      if (gone.size > 0) await this.#writes.gcEditOwnerReferences(type, stored.key, uid, (current) => current.filter((r) => !gone.has(r.uid)));
      return;
    }
    const ownDependents = this.#dependents.get(uid);
    if (waiting && ownDependents !== undefined && ownDependents.size > 0) {
      // An owner waits for this object in the foreground: delete it in the foreground too. If one
      // of its dependents is itself waiting (a cycle), stop blocking our owners first.
      if ([...ownDependents].some((d) => this.#isDeletingDependents(d))) {
        await this.#writes.gcEditOwnerReferences(type, stored.key, uid, (current) =>
          current.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r)),
        );
      }
      await this.#writes.gcDelete(type, stored.key, uid, 'Foreground');
      return;
    }
    const policy: PropagationPolicy = hasFinalizer(meta, orphanFinalizer) ? 'Orphan' : hasFinalizer(meta, foregroundFinalizer) ? 'Foreground' : 'Background';
    await this.#writes.gcDelete(type, stored.key, uid, policy);
  }

  /** Looks the owner up as the real collector does: by kind and name in the dependent's namespace, then compares uids. */
  #ownerState(ref: OwnerReference, dependentNamespaced: boolean, namespace: string | undefined): OwnerState {
    if (typeof ref?.uid !== 'string' || typeof ref.apiVersion !== 'string' || typeof ref.kind !== 'string' || typeof ref.name !== 'string') return 'unresolved';
    const ownerType = this.#registry.findKind(ref.apiVersion, ref.kind);
    if (!ownerType) return this.#absentOwners.has(ref.uid) ? 'dangling' : 'unresolved';
    if (ownerType.namespaced && !dependentNamespaced) return 'unresolved';
    const owner = this.#store.get(storeKeyOf(ownerType), ownerType.namespaced ? `${namespace ?? ''}/${ref.name}` : ref.name);
    const ownerMeta = owner?.object.metadata;
    if (!ownerMeta || ownerMeta.uid !== ref.uid) return 'dangling';
    if (ownerMeta.deletionTimestamp && hasFinalizer(ownerMeta, foregroundFinalizer)) return 'waiting';
    return 'solid';
  }

  #isDeletingDependents(location: string): boolean {
    const { storeKey, key } = splitLocation(location);
    const meta = this.#store.get(storeKey, key)?.object.metadata;
    return meta?.deletionTimestamp !== undefined && hasFinalizer(meta, foregroundFinalizer);
  }

  /** The real collector's `processDeletingDependentsItem`: done once no blocking dependent is left. */
  async #processForeground(type: ResourceType, stored: StoredObject): Promise<void> {
    const meta = stored.object.metadata;
    const uid = meta.uid;
    if (uid === undefined || !meta.deletionTimestamp || !hasFinalizer(meta, foregroundFinalizer)) return;
    let blocked = false;
    for (const location of this.#dependents.get(uid) ?? []) {
      const { storeKey, key } = splitLocation(location);
      const dependent = this.#store.get(storeKey, key)?.object.metadata;
      if (!dependent?.ownerReferences?.some((r) => r.uid === uid && r.blockOwnerDeletion === true)) continue;
      blocked = true;
      if (!dependent.deletionTimestamp) this.#enqueue('dependent', location);
    }
    if (!blocked) await this.#writes.gcRemoveFinalizer(type, stored.key, uid, foregroundFinalizer);
  }

  /** The real collector's `orphanDependents`: the owner's uid leaves every dependent, then the finalizer goes. */
  async #processOrphan(type: ResourceType, stored: StoredObject): Promise<void> {
    const meta = stored.object.metadata;
    const uid = meta.uid;
    if (uid === undefined || !meta.deletionTimestamp || !hasFinalizer(meta, orphanFinalizer)) return;
    for (const location of [...(this.#dependents.get(uid) ?? [])]) {
      const { storeKey, key } = splitLocation(location);
      const dependentType = this.#registry.byStoreKey(storeKey);
      const dependentUid = this.#store.get(storeKey, key)?.object.metadata.uid;
      if (!dependentType || dependentUid === undefined) continue;
      await this.#writes.gcEditOwnerReferences(dependentType, key, dependentUid, (current) => current.filter((r) => r.uid !== uid));
    }
    await this.#writes.gcRemoveFinalizer(type, stored.key, uid, orphanFinalizer);
  }
}
