/**
 * kube-controller-manager's statefulset controller: Pods `<name>-0` ... `<name>-(N-1)` with stable
 * names, `hostname` and `subdomain` (the governing Service), one PersistentVolumeClaim per
 * `volumeClaimTemplates` entry and ordinal (`<claim>-<name>-<ordinal>`, shown Bound: no storage is
 * simulated), and the labels `statefulset.kubernetes.io/pod-name`, `apps.kubernetes.io/pod-index`
 * and `controller-revision-hash`. `OrderedReady` (the default) creates the next ordinal only once
 * every lower one is Running and Ready and removes the highest first, one at a time; `Parallel`
 * does all at once. A template change is a new revision (a ControllerRevision, as `kubectl rollout
 * history` reads them): `RollingUpdate` replaces Pods from the highest ordinal down to `partition`,
 * one at a time, each after the previous one is Ready again; `OnDelete` waits for Pods to be deleted.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { StoredObject } from '../../storage/change-event.js';
import { objectKeyOf } from '../../objects/object-context.js';
import { storeKeyOf } from '../../types/resource-type.js';
import type { SimulatedController } from '../simulated-controller.js';
import { builtinType, storedAt } from '../simulation-context.js';
import type { SimulationContext } from '../simulation-context.js';
import type { V1PodTemplateSpec } from '@kubeloop/resource';
import { podTemplateHash } from './pod-template-hash.js';
import { controlledBy, podReady, podStatus } from './owned-pods.js';

interface StatefulSetSpec {
  replicas?: number;
  serviceName?: string;
  podManagementPolicy?: 'OrderedReady' | 'Parallel';
  updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { partition?: number } };
  revisionHistoryLimit?: number;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
  volumeClaimTemplates?: { metadata?: { name?: string; labels?: Record<string, string> }; spec?: Record<string, unknown> }[];
}

type StatefulSet = KubeObject & { spec?: StatefulSetSpec; status?: Record<string, unknown> };

const revisionLabel = 'controller-revision-hash';

/** Runs every StatefulSet; keys are `namespace/name`. */
export function statefulSetController(ctx: SimulationContext): SimulatedController {
  const setType = builtinType(ctx, 'apps/v1', 'StatefulSet');
  const podType = builtinType(ctx, 'v1', 'Pod');
  const claimType = builtinType(ctx, 'v1', 'PersistentVolumeClaim');
  const revisionType = builtinType(ctx, 'apps/v1', 'ControllerRevision');
  const sets = storeKeyOf(setType);
  const pods = storeKeyOf(podType);

  return {
    name: 'statefulset',
    watches: [sets, pods],
    *keysFor(storeKey, event) {
      if (storeKey === sets) {
        yield event.current.key;
        return;
      }
      const ref = event.current.object.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'StatefulSet');
      if (ref) yield objectKeyOf(event.current.object.metadata.namespace, ref.name);
    },
    *initialKeys() {
      for (const set of ctx.store.values(sets)) yield set.key;
    },
    async sync(key) {
      const stored = storedAt(ctx, setType, key);
      if (!stored || stored.object.metadata.deletionTimestamp) return undefined;
      const set = stored.object as StatefulSet;
      const spec = set.spec ?? {};
      const name = set.metadata.name;
      const namespace = set.metadata.namespace ?? '';
      const uid = set.metadata.uid ?? '';
      const replicas = spec.replicas ?? 1;
      const updateRevision = `${name}-${podTemplateHash((spec.template ?? {}) as V1PodTemplateSpec, undefined)}`;
      await ensureRevision(set, updateRevision);

      const owned = controlledBy(ctx, podType, namespace, uid);
      const byOrdinal = new Map<number, StoredObject>();
      for (const pod of owned) {
        const ordinal = ordinalOf(name, pod.object.metadata.name);
        if (ordinal !== undefined) byOrdinal.set(ordinal, pod);
      }
      const ordered = (spec.podManagementPolicy ?? 'OrderedReady') === 'OrderedReady';
      const healthy = (pod: StoredObject | undefined): boolean => pod !== undefined && !pod.object.metadata.deletionTimestamp && podStatus(pod).phase === 'Running' && podReady(pod);

      // Scale down: the highest ordinals first (OrderedReady: one at a time, and only when all below are healthy).
      const surplus = [...byOrdinal.keys()].filter((ordinal) => ordinal >= replicas).sort((a, b) => b - a);
      for (const ordinal of surplus) {
        const pod = byOrdinal.get(ordinal);
        if (!pod || pod.object.metadata.deletionTimestamp) {
          if (ordered) break;
          continue;
        }
        await ctx.writes.delete(podType, pod);
        if (ordered) break;
      }

      // Create what is missing (OrderedReady: the lowest missing one, once every lower one is healthy).
      for (let ordinal = 0; ordinal < replicas; ordinal++) {
        const pod = byOrdinal.get(ordinal);
        if (pod === undefined) {
          await ensureClaims(set, ordinal);
          await ctx.writes.create(podType, podFor(set, ordinal, updateRevision));
          if (ordered) break;
          continue;
        }
        if (ordered && !healthy(pod)) break;
      }

      // Rolling update: the highest ordinal on an old revision, down to the partition, one at a time.
      const strategy = spec.updateStrategy?.type ?? 'RollingUpdate';
      if (strategy === 'RollingUpdate') {
        const partition = spec.updateStrategy?.rollingUpdate?.partition ?? 0;
        const allHealthy = [...Array(replicas).keys()].every((ordinal) => healthy(byOrdinal.get(ordinal)));
        for (let ordinal = replicas - 1; ordinal >= partition && allHealthy; ordinal--) {
          const pod = byOrdinal.get(ordinal);
          if (pod && pod.object.metadata.labels?.[revisionLabel] !== updateRevision) {
            await ctx.writes.delete(podType, pod);
            break;
          }
        }
      }

      const current = controlledBy(ctx, podType, namespace, uid).filter((pod) => !pod.object.metadata.deletionTimestamp);
      const updated = current.filter((pod) => pod.object.metadata.labels?.[revisionLabel] === updateRevision);
      const readyPods = current.filter(podReady);
      const currentRevision = updated.length === current.length && current.length >= replicas ? updateRevision : ((set.status?.currentRevision as string | undefined) ?? updateRevision);
      await ctx.writes.updateStatus(setType, stored, (object) => {
        const target = object as StatefulSet;
        target.status = {
          ...target.status,
          observedGeneration: set.metadata.generation,
          replicas: current.length,
          readyReplicas: readyPods.length,
          currentReplicas: current.filter((pod) => pod.object.metadata.labels?.[revisionLabel] === currentRevision).length,
          updatedReplicas: updated.length,
          availableReplicas: readyPods.length,
          currentRevision,
          updateRevision,
          collisionCount: 0,
        };
        for (const field of ['readyReplicas', 'currentReplicas', 'updatedReplicas'] as const) if (target.status[field] === 0) delete target.status[field];
      });
      return undefined;
    },
  };

  /** One ControllerRevision per template, numbered in order, as `kubectl rollout history` lists them. */
  async function ensureRevision(set: StatefulSet, revisionName: string): Promise<void> {
    const namespace = set.metadata.namespace ?? '';
    if (storedAt(ctx, revisionType, objectKeyOf(namespace, revisionName))) return;
    const existing = controlledBy(ctx, revisionType, namespace, set.metadata.uid ?? '');
    const revision = Math.max(0, ...existing.map((r) => Number((r.object as KubeObject & { revision?: number }).revision ?? 0))) + 1;
    await ctx.writes.create(revisionType, {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: revisionName,
        namespace,
        labels: { ...set.spec?.template?.metadata?.labels, [revisionLabel]: revisionName.slice(set.metadata.name.length + 1) },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: set.metadata.name, uid: set.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      data: { spec: { template: { ...structuredClone(set.spec?.template ?? {}), $patch: 'replace' } } },
      revision,
    });
  }

  async function ensureClaims(set: StatefulSet, ordinal: number): Promise<void> {
    for (const claim of set.spec?.volumeClaimTemplates ?? []) {
      const claimName = `${claim.metadata?.name ?? 'data'}-${set.metadata.name}-${ordinal}`;
      if (storedAt(ctx, claimType, objectKeyOf(set.metadata.namespace, claimName))) continue;
      const created = await ctx.writes.create(claimType, {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: claimName, namespace: set.metadata.namespace, labels: { ...claim.metadata?.labels, ...set.spec?.template?.metadata?.labels } },
        spec: structuredClone(claim.spec ?? {}),
      });
      if (created) await ctx.writes.updateStatus(claimType, created, (object) => Object.assign(object, { status: { phase: 'Bound' } }));
    }
  }
}

/** The ordinal of `podName` in the set `setName`, or undefined when it is not `<setName>-<n>`. */
function ordinalOf(setName: string, podName: string): number | undefined {
  if (!podName.startsWith(`${setName}-`)) return undefined;
  const text = podName.slice(setName.length + 1);
  return /^(0|[1-9]\d*)$/.test(text) ? Number(text) : undefined;
}

function podFor(set: StatefulSet, ordinal: number, revision: string): KubeObject {
  const template = set.spec?.template ?? {};
  const podName = `${set.metadata.name}-${ordinal}`;
  const volumes = [
    ...(((template.spec?.volumes as unknown[] | undefined) ?? [])),
    ...(set.spec?.volumeClaimTemplates ?? []).map((claim) => ({ name: claim.metadata?.name ?? 'data', persistentVolumeClaim: { claimName: `${claim.metadata?.name ?? 'data'}-${podName}` } })),
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName,
      namespace: set.metadata.namespace,
      labels: { ...template.metadata?.labels, [revisionLabel]: revision, 'statefulset.kubernetes.io/pod-name': podName, 'apps.kubernetes.io/pod-index': String(ordinal) },
      ...(template.metadata?.annotations && { annotations: { ...template.metadata.annotations } }),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: set.metadata.name, uid: set.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: { ...structuredClone(template.spec ?? {}), hostname: podName, ...(set.spec?.serviceName && { subdomain: set.spec.serviceName }), ...(volumes.length > 0 && { volumes }) },
  };
}
