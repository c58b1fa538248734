/**
 * kube-controller-manager's daemonset controller: one Pod per Node that matches the template's
 * `nodeSelector` and whose NoSchedule/NoExecute taints the template tolerates (DaemonSet Pods also
 * tolerate the node condition taints: not-ready, unreachable, pressure, unschedulable, as upstream
 * adds them). Pods are named `<name>-<suffix>`, bound to their Node (`spec.nodeName`, plus the
 * required node affinity upstream writes) and labelled `controller-revision-hash`. A template change
 * replaces Pods on the old revision `maxUnavailable` at a time (default 1), each batch once the
 * new Pods are Ready; `OnDelete` waits for deletions. Pods on Nodes that no longer qualify are removed.
 */
import { LabelSelector } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import type { StoredObject } from '../../storage/change-event.js';
import { objectKeyOf } from '../../objects/object-context.js';
import { storeKeyOf } from '../../types/resource-type.js';
import { randomSuffix } from '../generated-names.js';
import type { SimulatedController } from '../simulated-controller.js';
import { builtinType, storedAt } from '../simulation-context.js';
import type { SimulationContext } from '../simulation-context.js';
import type { V1PodTemplateSpec } from '@kubeloop/resource';
import { podTemplateHash } from './pod-template-hash.js';
import { controlledBy, podReady } from './owned-pods.js';

interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
}

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

interface DaemonSetSpec {
  updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { maxUnavailable?: number | string } };
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] } & Record<string, unknown> };
}

type DaemonSet = KubeObject & { spec?: DaemonSetSpec; status?: Record<string, unknown> };

const revisionLabel = 'controller-revision-hash';

/** The taints a DaemonSet's Pods tolerate whatever their template says (upstream adds these tolerations). */
const daemonTolerations: readonly Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

/** Runs every DaemonSet; keys are `namespace/name`. */
export function daemonSetController(ctx: SimulationContext): SimulatedController {
  const setType = builtinType(ctx, 'apps/v1', 'DaemonSet');
  const podType = builtinType(ctx, 'v1', 'Pod');
  const nodeType = builtinType(ctx, 'v1', 'Node');
  const sets = storeKeyOf(setType);
  const pods = storeKeyOf(podType);
  const nodes = storeKeyOf(nodeType);

  return {
    name: 'daemonset',
    watches: [sets, pods, nodes],
    *keysFor(storeKey, event) {
      if (storeKey === sets) yield event.current.key;
      else if (storeKey === nodes) for (const set of ctx.store.values(sets)) yield set.key;
      else {
        const ref = event.current.object.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'DaemonSet');
        if (ref) yield objectKeyOf(event.current.object.metadata.namespace, ref.name);
      }
    },
    *initialKeys() {
      for (const set of ctx.store.values(sets)) yield set.key;
    },
    async sync(key) {
      const stored = storedAt(ctx, setType, key);
      if (!stored || stored.object.metadata.deletionTimestamp) return undefined;
      const set = stored.object as DaemonSet;
      const namespace = set.metadata.namespace ?? '';
      const revision = podTemplateHash((set.spec?.template ?? {}) as V1PodTemplateSpec, undefined);
      const eligible = [...ctx.store.values(nodes)].filter((node) => !node.object.metadata.deletionTimestamp && qualifies(set, node.object)).map((node) => node.object.metadata.name);
      const owned = controlledBy(ctx, podType, namespace, set.metadata.uid ?? '').filter((pod) => !pod.object.metadata.deletionTimestamp);
      const onNode = new Map<string, StoredObject[]>();
      for (const pod of owned) {
        const nodeName = (pod.object as KubeObject & { spec?: { nodeName?: string } }).spec?.nodeName ?? '';
        onNode.set(nodeName, [...(onNode.get(nodeName) ?? []), pod]);
      }
      // Pods on Nodes that no longer qualify (or gone), and duplicates on one Node, are removed.
      for (const [nodeName, podsOnNode] of onNode) {
        const extra = eligible.includes(nodeName) ? podsOnNode.slice(1) : podsOnNode;
        for (const pod of extra) await ctx.writes.delete(podType, pod);
      }
      for (const nodeName of eligible) if (!onNode.has(nodeName)) await ctx.writes.create(podType, podFor(set, nodeName, revision));

      if ((set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
        const current = eligible.map((nodeName) => onNode.get(nodeName)?.[0]).filter((pod): pod is StoredObject => pod !== undefined);
        const old = current.filter((pod) => pod.object.metadata.labels?.[revisionLabel] !== revision);
        const unavailable = current.filter((pod) => !podReady(pod)).length + (eligible.length - current.length);
        const budget = Math.max(0, maxUnavailable(set, eligible.length) - unavailable);
        for (const pod of old.slice(0, budget)) await ctx.writes.delete(podType, pod);
      }

      const current = controlledBy(ctx, podType, namespace, set.metadata.uid ?? '').filter((pod) => !pod.object.metadata.deletionTimestamp);
      const scheduled = current.filter((pod) => eligible.includes((pod.object as KubeObject & { spec?: { nodeName?: string } }).spec?.nodeName ?? ''));
      const ready = scheduled.filter(podReady).length;
      const updated = scheduled.filter((pod) => pod.object.metadata.labels?.[revisionLabel] === revision).length;
      await ctx.writes.updateStatus(setType, stored, (object) => {
        const target = object as DaemonSet;
        target.status = {
          ...target.status,
          observedGeneration: set.metadata.generation,
          desiredNumberScheduled: eligible.length,
          currentNumberScheduled: scheduled.length,
          numberMisscheduled: current.length - scheduled.length,
          numberReady: ready,
          numberAvailable: ready,
          updatedNumberScheduled: updated,
          numberUnavailable: eligible.length - ready,
        };
        for (const field of ['numberAvailable', 'updatedNumberScheduled', 'numberUnavailable'] as const) if (target.status[field] === 0) delete target.status[field];
      });
      return undefined;
    },
  };
}

function maxUnavailable(set: DaemonSet, nodes: number): number {
  const value = set.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
  if (typeof value === 'number') return Math.max(1, value);
  const percent = /^(\d+)%$/.exec(value);
  return percent ? Math.max(1, Math.floor((nodes * Number(percent[1])) / 100)) : 1;
}

/** Whether a DaemonSet's Pod belongs on `node`: its nodeSelector matches and every NoSchedule/NoExecute taint is tolerated. */
function qualifies(set: DaemonSet, node: KubeObject): boolean {
  const template = set.spec?.template?.spec;
  if (template?.nodeSelector && !LabelSelector.fromLabels(template.nodeSelector).matches(node.metadata.labels ?? {})) return false;
  const taints = (node as KubeObject & { spec?: { taints?: Taint[] } }).spec?.taints ?? [];
  const tolerations = [...(template?.tolerations ?? []), ...daemonTolerations];
  return taints.filter((taint) => taint.effect !== 'PreferNoSchedule').every((taint) => tolerations.some((toleration) => tolerates(toleration, taint)));
}

function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect !== undefined && toleration.effect !== '' && toleration.effect !== taint.effect) return false;
  if (toleration.key === undefined || toleration.key === '') return toleration.operator === 'Exists';
  if (toleration.key !== taint.key) return false;
  return toleration.operator === 'Exists' || (toleration.value ?? '') === (taint.value ?? '');
}

function podFor(set: DaemonSet, nodeName: string, revision: string): KubeObject {
  const template = set.spec?.template ?? {};
  const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] } } };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${set.metadata.name}-${randomSuffix()}`,
      namespace: set.metadata.namespace,
      labels: { ...template.metadata?.labels, [revisionLabel]: revision },
      ...(template.metadata?.annotations && { annotations: { ...template.metadata.annotations } }),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: set.metadata.name, uid: set.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: { ...structuredClone(template.spec ?? {}), nodeName, affinity, tolerations: [...(template.spec?.tolerations ?? []), ...daemonTolerations] },
  };
}
