/**
 * One sync of a Deployment, in the steps of upstream's deployment controller (`syncDeployment`):
 * claim the ReplicaSets its selector matches; a Deployment being deleted only gets its status; a
 * paused one, or one resized (a ReplicaSet's `desired-replicas` differs from `spec.replicas`),
 * is scaled (proportionally in a rolling update); otherwise it rolls out, by RollingUpdate (grow
 * the new ReplicaSet within `maxSurge`, shrink the old ones within `maxUnavailable`, unhealthy
 * replicas first) or Recreate (old ReplicaSets to 0, wait until their Pods are gone, then the new
 * one to full size). A complete rollout deletes the old ReplicaSets past `revisionHistoryLimit`.
 * Each step writes and returns; the events of its writes bring the next sync, as upstream.
 *
 * The new ReplicaSet is named `<deployment>-<pod-template-hash>` (`pod-template-hash.ts`), and
 * found again by its template. Unlike upstream, whose status writes also carry the Deployment's
 * `deployment.kubernetes.io/revision` annotation, this server's `/status` keeps metadata as it is,
 * so the annotation is written by an update of the Deployment itself (no new generation).
 */
import type { Deployment, KubeObject, LabelSelector, Pod, ReplicaSet, V1DeploymentStatus } from '@kubeloop/resource';
import { controllerOf } from '@kubeloop/resource';
import type { StoredObject } from '../../storage/change-event.js';
import { conflict } from '../../http/status-error.js';
import { cloneJson, jsonEqual } from '../../json-value.js';
import { objectKeyOf } from '../../objects/object-context.js';
import { storeKeyOf } from '../../types/resource-type.js';
import type { ResourceType } from '../../types/resource-type.js';
import { objectsIn, timestampNow } from '../simulation-context.js';
import type { SimulationContext } from '../simulation-context.js';
import { claimObjects, controllerRefTo, isControlledBy } from './controller-refs.js';
import { desiredReplicasAnnotation, intAnnotation, newReplicaSetAnnotations, replicasAnnotations, replicasAnnotationsNeedUpdate, revisionAnnotation, revisionOf } from './deployment-revisions.js';
import { byCreation, proportionalSizes, sizeOf } from './deployment-scaling.js';
import { calculateStatus, conditionOf, deploymentComplete, hasProgressDeadline, newCondition, reasons, rolloutStatus, setCondition, timeoutCheckDelay } from './deployment-status.js';
import type { Now } from './deployment-status.js';
import { podTemplateHash, podTemplateHashLabel, templatesEqualIgnoringHash } from './pod-template-hash.js';
import { labelSelectorOf } from './replica-sets.js';
import { desiredReplicas, isRollingUpdate, maxUnavailable, newReplicaSetReplicas } from './rollout-arithmetic.js';

/** The served types a Deployment sync works with. */
export interface DeploymentTypes {
  readonly deployment: ResourceType;
  readonly replicaSet: ResourceType;
  readonly pod: ResourceType;
}

/** A ReplicaSet as this sync last wrote or read it. */
class ReplicaSetRef {
  constructor(public stored: StoredObject) {}
  get rs(): ReplicaSet {
    return this.stored.object as ReplicaSet;
  }
}

type Ref = ReplicaSetRef;

const isDefined = <T>(value: T | undefined): value is T => value !== undefined;
const active = (refs: readonly (Ref | undefined)[]): Ref[] => refs.filter(isDefined).filter((r) => sizeOf(r.rs) > 0);
const total = (refs: readonly Ref[], count: (rs: ReplicaSet) => number | undefined): number => refs.reduce((sum, r) => sum + (count(r.rs) ?? 0), 0);
const maxInt32 = 2_147_483_647;

/** Syncs one Deployment; see the file's comment. */
export class DeploymentSync {
  readonly #ctx: SimulationContext;
  readonly #types: DeploymentTypes;
  #stored: StoredObject;
  #d: Deployment;

  constructor(ctx: SimulationContext, types: DeploymentTypes, stored: StoredObject) {
    this.#ctx = ctx;
    this.#types = types;
    this.#stored = stored;
    this.#d = cloneJson(stored.object) as Deployment;
  }

  /** Runs the sync; resolves to the delay after which to sync again (a progress deadline to check), if any. */
  async run(): Promise<number | undefined> {
    const d = this.#d;
    const selector = labelSelectorOf(d);
    if (!selector) {
      // Upstream refuses a selector that selects everything; it only notes the generation.
      const generation = d.metadata.generation ?? 0;
      if ((d.status?.observedGeneration ?? 0) < generation) await this.#writeStatus({ ...d.status, observedGeneration: generation });
      return undefined;
    }
    const claimed = await claimObjects(this.#ctx, {
      owner: d,
      type: this.#types.replicaSet,
      candidates: objectsIn(this.#ctx, this.#types.replicaSet, d.metadata.namespace),
      matches: (rs) => selector.matches(rs.metadata.labels ?? {}),
    });
    const rsList = claimed.map((stored) => new ReplicaSetRef(stored));
    if (d.metadata.deletionTimestamp) return this.#syncStatusOnly(rsList);
    await this.#checkPausedConditions();
    if (this.#d.spec?.paused) return this.#syncScaling(rsList);
    if (await this.#isScalingEvent(rsList)) return this.#syncScaling(rsList);
    return this.#d.spec?.strategy?.type === 'Recreate' ? this.#rolloutRecreate(rsList, selector) : this.#rolloutRolling(rsList);
  }

  get #now(): Now {
    return { ms: this.#ctx.clock.now(), timestamp: timestampNow(this.#ctx) };
  }

  async #writeStatus(status: V1DeploymentStatus): Promise<void> {
    this.#stored = await this.#ctx.writes.updateStatus(this.#types.deployment, this.#stored, (next) => {
      next.status = status;
    });
    this.#d = cloneJson(this.#stored.object) as Deployment;
  }

  /** Upstream's `SetDeploymentRevision`, written at once. */
  async #setRevision(revision: string): Promise<void> {
    if (this.#d.metadata.annotations?.[revisionAnnotation] === revision) return;
    this.#stored = await this.#ctx.writes.update(this.#types.deployment, this.#stored, (next) => {
      next.metadata.annotations = { ...next.metadata.annotations, [revisionAnnotation]: revision };
    });
    this.#d = cloneJson(this.#stored.object) as Deployment;
  }

  async #checkPausedConditions(): Promise<void> {
    const d = this.#d;
    if (!hasProgressDeadline(d)) return;
    const current = conditionOf(d.status, 'Progressing');
    if (current?.reason === reasons.progressDeadlineExceeded) return;
    const pausedNoted = current?.reason === reasons.paused;
    const paused = d.spec?.paused === true;
    if (paused === pausedNoted) return;
    const status = cloneJson(d.status ?? {});
    const [reason, message] = paused ? [reasons.paused, 'Deployment is paused'] : [reasons.resumed, 'Deployment is resumed'];
    setCondition(status, newCondition('Progressing', 'Unknown', reason, message, this.#now));
    await this.#writeStatus(status);
  }

  /** Upstream's `getAllReplicaSetsAndSyncRevision`. */
  async #replicaSets(rsList: readonly Ref[], create: boolean): Promise<{ newRS: Ref | undefined; oldRSs: Ref[] }> {
    const template = this.#d.spec?.template;
    const existing = [...rsList].sort((a, b) => byCreation(a.rs, b.rs)).find((r) => templatesEqualIgnoringHash(r.rs.spec?.template, template));
    const oldRSs = rsList.filter((r) => r !== existing);
    const newRS = await this.#newReplicaSet(existing, oldRSs, create);
    return { newRS, oldRSs };
  }

  /** Upstream's `getNewReplicaSet`: syncs the existing new ReplicaSet's annotations, or creates it. */
  async #newReplicaSet(existing: Ref | undefined, oldRSs: readonly Ref[], create: boolean): Promise<Ref | undefined> {
    const d = this.#d;
    const newRevision = Math.max(0, ...oldRSs.map((r) => revisionOf(r.rs))) + 1;
    if (existing) {
      const annotations = newReplicaSetAnnotations(d, existing.rs.metadata.annotations, newRevision, true);
      const minReadySeconds = d.spec?.minReadySeconds ?? 0;
      if (!jsonEqual(annotations, existing.rs.metadata.annotations ?? {}) || (existing.rs.spec?.minReadySeconds ?? 0) !== minReadySeconds) {
        existing.stored = await this.#ctx.writes.update(this.#types.replicaSet, existing.stored, (next) => {
          next.metadata.annotations = annotations;
          (next as ReplicaSet).spec!.minReadySeconds = minReadySeconds;
        });
        return existing;
      }
      await this.#setRevision(existing.rs.metadata.annotations?.[revisionAnnotation] ?? '');
      if (hasProgressDeadline(this.#d) && !conditionOf(this.#d.status, 'Progressing')) {
        const status = cloneJson(this.#d.status ?? {});
        setCondition(status, newCondition('Progressing', 'True', reasons.foundNewReplicaSet, `Found new replica set "${existing.rs.metadata.name}"`, this.#now));
        await this.#writeStatus(status);
      }
      return existing;
    }
    if (!create) return undefined;
    const rs = this.#replicaSetToCreate(newRevision, total(oldRSs, (r) => sizeOf(r)));
    let created = await this.#ctx.writes.create(this.#types.replicaSet, rs);
    const alreadyExists = created === undefined;
    if (!created) {
      const found = this.#ctx.store.get(storeKeyOf(this.#types.replicaSet), objectKeyOf(rs.metadata.namespace, rs.metadata.name));
      if (!found || !isControlledBy(found.object, d) || !templatesEqualIgnoringHash((found.object as ReplicaSet).spec?.template, d.spec?.template)) {
        // A hash collision: another template holds the name. A new collisionCount makes a new hash.
        await this.#writeStatus({ ...cloneJson(d.status ?? {}), collisionCount: (d.status?.collisionCount ?? 0) + 1 });
        throw conflict(this.#types.replicaSet, rs.metadata.name, 'a ReplicaSet of this name has another template; collisionCount raised');
      }
      created = found;
    }
    const ref = new ReplicaSetRef(created);
    await this.#setRevision(String(newRevision));
    if (!alreadyExists && hasProgressDeadline(this.#d)) {
      const status = cloneJson(this.#d.status ?? {});
      setCondition(status, newCondition('Progressing', 'True', reasons.newReplicaSetCreated, `Created new replica set "${ref.rs.metadata.name}"`, this.#now));
      await this.#writeStatus(status);
    }
    return ref;
  }

  #replicaSetToCreate(revision: number, oldSpecReplicas: number): ReplicaSet {
    const d = this.#d;
    const template = cloneJson(d.spec?.template ?? {});
    const hash = podTemplateHash(template, d.status?.collisionCount);
    const labels = { ...template.metadata?.labels, [podTemplateHashLabel]: hash };
    template.metadata = { ...template.metadata, labels };
    const selector = cloneJson(d.spec!.selector);
    selector.matchLabels = { ...selector.matchLabels, [podTemplateHashLabel]: hash };
    const replicas = newReplicaSetReplicas(d, oldSpecReplicas, 0);
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace: d.metadata.namespace,
        labels: { ...labels },
        annotations: newReplicaSetAnnotations(d, undefined, revision, false),
        ownerReferences: [controllerRefTo(d)],
      },
      spec: { replicas, selector, template },
    };
    const minReadySeconds = d.spec?.minReadySeconds ?? 0;
    if (minReadySeconds > 0) rs.spec!.minReadySeconds = minReadySeconds;
    return rs;
  }

  /** Upstream's `scaleReplicaSet`: the size and the replica annotations; true when the size changed. */
  async #scaleReplicaSet(ref: Ref, size: number): Promise<boolean> {
    const resized = sizeOf(ref.rs) !== size;
    if (!resized && !replicasAnnotationsNeedUpdate(ref.rs, this.#d)) return false;
    const annotations = replicasAnnotations(this.#d);
    ref.stored = await this.#ctx.writes.update(this.#types.replicaSet, ref.stored, (next) => {
      (next as ReplicaSet).spec!.replicas = size;
      next.metadata.annotations = { ...next.metadata.annotations, ...annotations };
    });
    return resized;
  }

  /** Upstream's `scaleReplicaSetAndRecordEvent` (no Event is recorded here). */
  #scaleTo(ref: Ref, size: number): Promise<boolean> {
    return sizeOf(ref.rs) === size ? Promise.resolve(false) : this.#scaleReplicaSet(ref, size);
  }

  async #rolloutRolling(rsList: readonly Ref[]): Promise<number | undefined> {
    const { newRS, oldRSs } = await this.#replicaSets(rsList, true);
    const all = [...oldRSs, newRS];
    if (newRS && (await this.#reconcileNewReplicaSet(all.filter(isDefined), newRS))) return this.#syncRolloutStatus(all, newRS);
    if (newRS && (await this.#reconcileOldReplicaSets(all.filter(isDefined), active(oldRSs), newRS))) return this.#syncRolloutStatus(all, newRS);
    if (deploymentComplete(this.#d, this.#d.status)) await this.#cleanup(oldRSs);
    return this.#syncRolloutStatus(all, newRS);
  }

  async #reconcileNewReplicaSet(all: readonly Ref[], newRS: Ref): Promise<boolean> {
    const desired = desiredReplicas(this.#d);
    if (sizeOf(newRS.rs) === desired) return false;
    if (sizeOf(newRS.rs) > desired) return this.#scaleTo(newRS, desired);
    return this.#scaleTo(newRS, newReplicaSetReplicas(this.#d, total(all, sizeOf), sizeOf(newRS.rs)));
  }

  async #reconcileOldReplicaSets(all: readonly Ref[], oldRSs: Ref[], newRS: Ref): Promise<boolean> {
    if (total(oldRSs, sizeOf) === 0) return false;
    const minAvailable = desiredReplicas(this.#d) - maxUnavailable(this.#d);
    const newUnavailable = sizeOf(newRS.rs) - (newRS.rs.status?.availableReplicas ?? 0);
    const maxScaledDown = total(all, sizeOf) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    const cleaned = await this.#cleanupUnhealthyReplicas(oldRSs, maxScaledDown);
    const scaledDown = await this.#scaleDownOldForRollingUpdate([...oldRSs, newRS], oldRSs);
    return cleaned + scaledDown > 0;
  }

  /** Scales old ReplicaSets down by their unavailable replicas first: removing those costs no availability. */
  async #cleanupUnhealthyReplicas(oldRSs: Ref[], maxCleanup: number): Promise<number> {
    oldRSs.sort((a, b) => byCreation(a.rs, b.rs));
    let scaledDown = 0;
    for (const ref of oldRSs) {
      if (scaledDown >= maxCleanup) break;
      const size = sizeOf(ref.rs);
      const available = ref.rs.status?.availableReplicas ?? 0;
      if (size === 0 || size === available) continue;
      const count = Math.min(maxCleanup - scaledDown, size - available);
      await this.#scaleTo(ref, size - count);
      scaledDown += count;
    }
    return scaledDown;
  }

  async #scaleDownOldForRollingUpdate(all: readonly Ref[], oldRSs: Ref[]): Promise<number> {
    const minAvailable = desiredReplicas(this.#d) - maxUnavailable(this.#d);
    const available = total(all, (rs) => rs.status?.availableReplicas);
    if (available <= minAvailable) return 0;
    oldRSs.sort((a, b) => byCreation(a.rs, b.rs));
    const toScaleDown = available - minAvailable;
    let scaledDown = 0;
    for (const ref of oldRSs) {
      if (scaledDown >= toScaleDown) break;
      const size = sizeOf(ref.rs);
      if (size === 0) continue;
      const count = Math.min(size, toScaleDown - scaledDown);
      await this.#scaleTo(ref, size - count);
      scaledDown += count;
    }
    return scaledDown;
  }

  async #rolloutRecreate(rsList: readonly Ref[], selector: LabelSelector): Promise<number | undefined> {
    const podsByOwner = this.#podsByReplicaSet(rsList, selector);
    let { newRS, oldRSs } = await this.#replicaSets(rsList, false);
    let scaledDown = false;
    for (const ref of active(oldRSs)) if (await this.#scaleTo(ref, 0)) scaledDown = true;
    if (scaledDown) return this.#syncRolloutStatus([...oldRSs, newRS], newRS);
    if (this.#oldPodsRunning(newRS, oldRSs, podsByOwner)) return this.#syncRolloutStatus([...oldRSs, newRS], newRS);
    if (!newRS) ({ newRS, oldRSs } = await this.#replicaSets(rsList, true));
    if (newRS) await this.#scaleTo(newRS, desiredReplicas(this.#d));
    if (deploymentComplete(this.#d, this.#d.status)) await this.#cleanup(oldRSs);
    return this.#syncRolloutStatus([...oldRSs, newRS], newRS);
  }

  /** The Pods the selector matches, by the uid of their controlling ReplicaSet among `rsList` (terminating ones too). */
  #podsByReplicaSet(rsList: readonly Ref[], selector: LabelSelector): Map<string, Pod[]> {
    const uids = new Set(rsList.map((r) => r.rs.metadata.uid));
    const byOwner = new Map<string, Pod[]>();
    for (const stored of objectsIn(this.#ctx, this.#types.pod, this.#d.metadata.namespace)) {
      const pod = stored.object as Pod;
      const owner = controllerOf(pod)?.uid;
      if (!owner || !uids.has(owner) || !selector.matches(pod.metadata.labels ?? {})) continue;
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), pod]);
    }
    return byOwner;
  }

  /** Upstream's `oldPodsRunning`: an old ReplicaSet still counts replicas, or an old Pod is not terminal yet. */
  #oldPodsRunning(newRS: Ref | undefined, oldRSs: readonly Ref[], podsByOwner: Map<string, Pod[]>): boolean {
    if (total(oldRSs, (rs) => rs.status?.replicas) > 0) return true;
    for (const [owner, pods] of podsByOwner) {
      if (newRS && owner === newRS.rs.metadata.uid) continue;
      if (pods.some((pod) => pod.status?.phase !== 'Failed' && pod.status?.phase !== 'Succeeded')) return true;
    }
    return false;
  }

  async #isScalingEvent(rsList: readonly Ref[]): Promise<boolean> {
    const { newRS, oldRSs } = await this.#replicaSets(rsList, false);
    const desired = desiredReplicas(this.#d);
    return active([...oldRSs, newRS]).some((ref) => {
      const annotated = intAnnotation(ref.rs, desiredReplicasAnnotation);
      return annotated !== undefined && annotated !== desired;
    });
  }

  /** Upstream's `sync`: scaling, without a rollout (a paused Deployment, or a resize). */
  async #syncScaling(rsList: readonly Ref[]): Promise<undefined> {
    const { newRS, oldRSs } = await this.#replicaSets(rsList, false);
    await this.#scale(newRS, oldRSs);
    if (this.#d.spec?.paused) await this.#cleanup(oldRSs);
    await this.#syncDeploymentStatus([...oldRSs, newRS], newRS);
    return undefined;
  }

  async #scale(newRS: Ref | undefined, oldRSs: readonly Ref[]): Promise<void> {
    const desired = desiredReplicas(this.#d);
    const latest = activeOrLatest(newRS, oldRSs);
    if (latest) {
      await this.#scaleTo(latest, desired);
      return;
    }
    if (newRS && this.#isSaturated(newRS)) {
      for (const ref of active(oldRSs)) await this.#scaleTo(ref, 0);
      return;
    }
    if (!isRollingUpdate(this.#d)) return;
    const refs = active([...oldRSs, newRS]);
    const byObject = new Map<KubeObject, Ref>(refs.map((r) => [r.rs, r]));
    for (const { rs, size } of proportionalSizes(this.#d, refs.map((r) => r.rs), this.#d.status?.replicas ?? 0)) {
      await this.#scaleReplicaSet(byObject.get(rs)!, size);
    }
  }

  #isSaturated(ref: Ref): boolean {
    const desired = desiredReplicas(this.#d);
    return sizeOf(ref.rs) === desired && intAnnotation(ref.rs, desiredReplicasAnnotation) === desired && (ref.rs.status?.availableReplicas ?? 0) === desired;
  }

  /** Upstream's `cleanupDeployment`: deletes the oldest revisions past `revisionHistoryLimit` that are scaled to 0. */
  async #cleanup(oldRSs: readonly Ref[]): Promise<void> {
    const limit = this.#d.spec?.revisionHistoryLimit;
    if (limit === undefined || limit === maxInt32) return;
    const cleanable = oldRSs.filter((r) => !r.rs.metadata.deletionTimestamp);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    cleanable.sort((a, b) => revisionOf(a.rs) - revisionOf(b.rs) || byCreation(a.rs, b.rs));
    for (const ref of cleanable.slice(0, diff)) {
      const rs = ref.rs;
      if ((rs.status?.replicas ?? 0) !== 0 || sizeOf(rs) !== 0 || (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      await this.#ctx.writes.delete(this.#types.replicaSet, ref.stored);
    }
  }

  async #syncStatusOnly(rsList: readonly Ref[]): Promise<undefined> {
    const { newRS, oldRSs } = await this.#replicaSets(rsList, false);
    await this.#syncDeploymentStatus([...oldRSs, newRS], newRS);
    return undefined;
  }

  async #syncDeploymentStatus(all: readonly (Ref | undefined)[], newRS: Ref | undefined): Promise<void> {
    const status = calculateStatus(this.#d, all.filter(isDefined).map((r) => r.rs), newRS?.rs, this.#now);
    if (!jsonEqual(this.#d.status ?? {}, status)) await this.#writeStatus(status);
  }

  /** Upstream's `syncRolloutStatus`; with nothing new to write, the delay until the progress deadline is due. */
  async #syncRolloutStatus(all: readonly (Ref | undefined)[], newRS: Ref | undefined): Promise<number | undefined> {
    const now = this.#now;
    const status = rolloutStatus(this.#d, all.filter(isDefined).map((r) => r.rs), newRS?.rs, now);
    if (jsonEqual(this.#d.status ?? {}, status)) return timeoutCheckDelay(this.#d, status, now.ms);
    await this.#writeStatus(status);
    return undefined;
  }
}

/** Upstream's `FindActiveOrLatest`: the one ReplicaSet with replicas, or the newest when none has; undefined when several have. */
function activeOrLatest(newRS: Ref | undefined, oldRSs: readonly Ref[]): Ref | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreation(b.rs, a.rs));
  const withReplicas = active([...newestFirst, newRS]);
  if (withReplicas.length === 0) return newRS ?? newestFirst[0];
  return withReplicas.length === 1 ? withReplicas[0] : undefined;
}
