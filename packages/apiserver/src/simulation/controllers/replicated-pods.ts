/**
 * The controller kube-controller-manager runs for ReplicaSets and (the same code, converted) for
 * ReplicationControllers: it keeps `spec.replicas` active Pods made from `spec.template`.
 *
 * One sync of an object: claim the active Pods of its namespace (adopt orphans its selector
 * matches, release its Pods that no longer match), then, unless it is being deleted, create the
 * missing Pods (`generateName` `<name>-`, the template's labels, annotations and finalizers, a
 * controller reference) or delete the surplus in upstream's order (`pod-deletion-order.ts`), then
 * write the status counted from the Pods claimed before this sync's creates and deletes, as upstream
 * does (their events bring the next sync). A Pod that is ready but not yet ready for
 * `minReadySeconds` brings a sync when it becomes available, on the simulation's clock.
 */
import { LabelSelector, controllerOf } from '@kubeloop/resource';
import type { KubeObject, Pod, V1PodTemplateSpec } from '@kubeloop/resource';
import type { StoredObject } from '../../storage/change-event.js';
import { cloneJson } from '../../json-value.js';
import { storeKeyOf } from '../../types/resource-type.js';
import type { SimulatedController } from '../simulated-controller.js';
import { builtinType, objectsIn, timestampNow } from '../simulation-context.js';
import type { SimulationContext } from '../simulation-context.js';
import { claimObjects, controllerKeyOf, controllerRefTo } from './controller-refs.js';
import { isPodActive, isPodAvailable, isPodReady, nextAvailabilityIn } from './pod-availability.js';
import { podsToDelete } from './pod-deletion-order.js';

/** At most this many Pods are created or deleted by one sync (upstream's `BurstReplicas`). */
const burstReplicas = 500;

/** The kind a replicated-Pods controller runs. */
export interface ReplicatedPodsKind {
  /** The controller's name (`replicaset`, `replicationcontroller`). */
  readonly name: string;
  readonly apiVersion: string;
  readonly kind: string;
  /** The object's selector; undefined when it has none that selects anything. */
  readonly selectorOf: (object: KubeObject) => LabelSelector | undefined;
}

/** The spec and status fields ReplicaSets and ReplicationControllers share. */
interface ReplicatedSpec {
  replicas?: number;
  minReadySeconds?: number;
  template?: V1PodTemplateSpec;
}

interface ReplicatedStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
}

type Replicated = KubeObject<ReplicatedSpec, ReplicatedStatus>;

/** A ReplicaSet/ReplicationController controller; keys are `namespace/name`. */
export function replicatedPodsController(ctx: SimulationContext, replicated: ReplicatedPodsKind): SimulatedController {
  const type = builtinType(ctx, replicated.apiVersion, replicated.kind);
  const podType = builtinType(ctx, 'v1', 'Pod');
  const ownStoreKey = storeKeyOf(type);
  const podStoreKey = storeKeyOf(podType);

  /** The objects of this kind in `namespace` whose selector matches `labels`. */
  function* matchingOwners(namespace: string | undefined, labels: Record<string, string> | undefined): Iterable<string> {
    for (const stored of objectsIn(ctx, type, namespace)) {
      if (replicated.selectorOf(stored.object)?.matches(labels ?? {})) yield stored.key;
    }
  }

  return {
    name: replicated.name,
    watches: [ownStoreKey, podStoreKey],
    *keysFor(storeKey, event) {
      if (storeKey === ownStoreKey) {
        yield event.current.key;
        return;
      }
      const pod = event.current.object;
      const owner = controllerKeyOf(pod, replicated.apiVersion, replicated.kind);
      if (owner) yield owner;
      const previous = event.previous && controllerKeyOf(event.previous.object, replicated.apiVersion, replicated.kind);
      if (previous && previous !== owner) yield previous;
      if (!controllerOf(pod) && event.type !== 'DELETED') yield* matchingOwners(pod.metadata.namespace, pod.metadata.labels);
    },
    *initialKeys() {
      for (const stored of ctx.store.values(ownStoreKey)) yield stored.key;
    },
    async sync(key) {
      const stored = ctx.store.get(ownStoreKey, key);
      if (!stored) return undefined;
      const owner = stored.object as Replicated;
      const selector = replicated.selectorOf(owner);
      if (!selector) return undefined;
      const active = [...objectsIn(ctx, podType, owner.metadata.namespace)].filter((p) => isPodActive(p.object as Pod));
      const claimed = await claimObjects(ctx, { owner, type: podType, candidates: active, matches: (pod) => selector.matches(pod.metadata.labels ?? {}) });
      const pods = claimed.map((p) => p.object as Pod);
      let failure: { reason: string; error: Error } | undefined;
      if (!owner.metadata.deletionTimestamp) {
        try {
          await manageReplicas(owner, claimed);
        } catch (err) {
          const error = err instanceof Error ? err : new Error(String(err));
          failure = { reason: pods.length < (owner.spec?.replicas ?? 1) ? 'FailedCreate' : 'FailedDelete', error };
        }
      }
      const now = ctx.clock.now();
      await ctx.writes.updateStatus(type, stored, (next) => {
        next.status = statusOf(next as Replicated, pods, { nowMs: now, timestamp: timestampNow(ctx) }, failure);
      });
      if (failure) throw failure.error;
      return nextAvailabilityIn(pods, owner.spec?.minReadySeconds ?? 0, now);
    },
  };

  async function manageReplicas(owner: Replicated, claimed: StoredObject[]): Promise<void> {
    const diff = claimed.length - (owner.spec?.replicas ?? 1);
    if (diff < 0) {
      const template = owner.spec?.template;
      if (!template) throw new Error(`${replicated.kind} ${owner.metadata.name} has no pod template`);
      for (let i = 0; i < Math.min(-diff, burstReplicas); i++) await ctx.writes.create(podType, podFromTemplate(owner, template));
    } else if (diff > 0) {
      const pods = claimed.map((p) => p.object as Pod);
      const victims = podsToDelete(pods, relatedPods(owner), Math.min(diff, burstReplicas), { nowMs: ctx.clock.now(), serverNowMs: Date.now() });
      const byUid = new Map(claimed.map((p) => [p.object.metadata.uid, p]));
      for (const victim of victims) {
        const target = byUid.get(victim.metadata.uid);
        if (target) await ctx.writes.delete(podType, target);
      }
    }
  }

  /** The active Pods of every object of this kind under the same controller as `owner` (its own without one). */
  function relatedPods(owner: Replicated): Pod[] {
    const parent = controllerOf(owner);
    const siblings = new Set<string>();
    for (const stored of objectsIn(ctx, type, owner.metadata.namespace)) {
      const sibling = stored.object;
      if (sibling.metadata.uid === owner.metadata.uid || (parent && controllerOf(sibling)?.uid === parent.uid)) siblings.add(sibling.metadata.uid ?? '');
    }
    const related: Pod[] = [];
    for (const stored of objectsIn(ctx, podType, owner.metadata.namespace)) {
      const pod = stored.object as Pod;
      const ref = controllerOf(pod);
      if (ref && siblings.has(ref.uid) && isPodActive(pod)) related.push(pod);
    }
    return related;
  }
}

/** A Pod as upstream's `GetPodFromTemplate` makes it. */
function podFromTemplate(owner: Replicated, template: V1PodTemplateSpec): Pod {
  const meta = template.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: '', generateName: `${owner.metadata.name}-`, namespace: owner.metadata.namespace, ownerReferences: [controllerRefTo(owner)] },
    spec: cloneJson(template.spec ?? { containers: [] }),
  };
  if (meta.labels && Object.keys(meta.labels).length > 0) pod.metadata.labels = { ...meta.labels };
  if (meta.annotations && Object.keys(meta.annotations).length > 0) pod.metadata.annotations = { ...meta.annotations };
  if (meta.finalizers && meta.finalizers.length > 0) pod.metadata.finalizers = [...meta.finalizers];
  return pod;
}

/** Upstream's `calculateStatus`, with its `omitempty` zeros left out (`replicas` is always there). */
function statusOf(owner: Replicated, pods: readonly Pod[], now: { nowMs: number; timestamp: string }, failure: { reason: string; error: Error } | undefined): ReplicatedStatus {
  const templateLabels = LabelSelector.fromLabels(owner.spec?.template?.metadata?.labels ?? {});
  const minReadySeconds = owner.spec?.minReadySeconds ?? 0;
  const status: ReplicatedStatus = { replicas: pods.length };
  const counts = {
    fullyLabeledReplicas: pods.filter((p) => templateLabels.matches(p.metadata.labels ?? {})).length,
    readyReplicas: pods.filter(isPodReady).length,
    availableReplicas: pods.filter((p) => isPodAvailable(p, minReadySeconds, now.nowMs)).length,
    observedGeneration: owner.metadata.generation ?? 0,
  };
  for (const [field, value] of Object.entries(counts)) if (value !== 0) status[field as keyof typeof counts] = value;
  const conditions = (owner.status?.conditions ?? []).filter((c) => c.type !== 'ReplicaFailure');
  const previousFailure = owner.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  if (failure) {
    conditions.push(previousFailure ?? { type: 'ReplicaFailure', status: 'True', reason: failure.reason, message: failure.error.message, lastTransitionTime: now.timestamp });
  }
  if (conditions.length > 0) status.conditions = conditions;
  return status;
}

