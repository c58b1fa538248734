/**
 * kube-controller-manager's endpointslice and endpoints controllers, for Services with a selector:
 * the Pods of the Service's namespace that match it and have an IP become endpoints (ready,
 * serving and terminating as their conditions and deletion say), in one EndpointSlice per
 * Service (`<service>-<suffix>`, labelled `kubernetes.io/service-name` and
 * `endpointslice.kubernetes.io/managed-by`) and in the Endpoints object of the Service's name
 * (ready addresses and `notReadyAddresses`). Ports are the Service's, a named `targetPort` resolved
 * against each Pod's container ports. Both are owned by the Service (the slice) or named after it
 * (Endpoints), and removed when the Service goes or loses its selector.
 */
import { LabelSelector } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import type { StoredObject } from '../../storage/change-event.js';
import { objectKeyOf } from '../../objects/object-context.js';
import { storeKeyOf } from '../../types/resource-type.js';
import type { SimulatedController } from '../simulated-controller.js';
import { randomSuffix } from '../generated-names.js';
import { builtinType, objectsIn, storedAt } from '../simulation-context.js';
import type { SimulationContext } from '../simulation-context.js';

const managedBy = 'endpointslice-controller.k8s.io';
const serviceNameLabel = 'kubernetes.io/service-name';

interface ServicePort {
  readonly name?: string;
  readonly port: number;
  readonly protocol?: string;
  readonly appProtocol?: string;
  readonly targetPort?: number | string;
}

interface PodView {
  readonly name: string;
  readonly uid: string;
  readonly ip: string;
  readonly nodeName: string | undefined;
  readonly ready: boolean;
  readonly terminating: boolean;
  readonly containerPorts: readonly { name?: string; containerPort: number; protocol?: string }[];
}

/** The EndpointSlice and Endpoints of every Service with a selector; keys are `namespace/service`. */
export function endpointsController(ctx: SimulationContext): SimulatedController {
  const serviceType = builtinType(ctx, 'v1', 'Service');
  const podType = builtinType(ctx, 'v1', 'Pod');
  const sliceType = builtinType(ctx, 'discovery.k8s.io/v1', 'EndpointSlice');
  const endpointsType = builtinType(ctx, 'v1', 'Endpoints');
  const services = storeKeyOf(serviceType);
  const pods = storeKeyOf(podType);
  const slices = storeKeyOf(sliceType);

  /** The Services of a namespace whose selector matches any of `labelSets`. */
  function* servicesSelecting(namespace: string, labelSets: readonly (Record<string, string> | undefined)[]): Iterable<string> {
    for (const service of objectsIn(ctx, serviceType, namespace)) {
      const selector = selectorOf(service.object);
      if (selector && labelSets.some((labels) => selector.matches(labels ?? {}))) yield service.key;
    }
  }

  return {
    name: 'endpointslice',
    watches: [services, pods, slices],
    *keysFor(storeKey, event) {
      const meta = event.current.object.metadata;
      const namespace = meta.namespace ?? '';
      if (storeKey === services) yield event.current.key;
      else if (storeKey === pods) yield* servicesSelecting(namespace, [meta.labels, event.previous?.object.metadata.labels]);
      else if (meta.labels?.[serviceNameLabel] !== undefined) yield objectKeyOf(namespace, meta.labels[serviceNameLabel]);
    },
    *initialKeys() {
      for (const service of ctx.store.values(services)) yield service.key;
    },
    async sync(key) {
      const slash = key.indexOf('/');
      const namespace = key.slice(0, slash);
      const name = key.slice(slash + 1);
      const service = storedAt(ctx, serviceType, key);
      const selector = service && !service.object.metadata.deletionTimestamp ? selectorOf(service.object) : undefined;
      const ownSlices = [...objectsIn(ctx, sliceType, namespace)].filter((slice) => slice.object.metadata.labels?.[serviceNameLabel] === name && slice.object.metadata.labels['endpointslice.kubernetes.io/managed-by'] === managedBy);
      const endpoints = storedAt(ctx, endpointsType, key);
      if (!service || !selector) {
        for (const slice of ownSlices) await ctx.writes.delete(sliceType, slice);
        if (endpoints && endpoints.object.metadata.labels?.['endpoints.kubernetes.io/managed-by'] === 'endpoint-controller') await ctx.writes.delete(endpointsType, endpoints);
        return undefined;
      }
      const members = [...objectsIn(ctx, podType, namespace)]
        .filter((pod) => selector.matches(pod.object.metadata.labels ?? {}))
        .map(podView)
        .filter((pod): pod is PodView => pod !== undefined);
      members.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const ports = servicePorts(service.object);
      await syncSlice(service, members, ports, ownSlices);
      await syncEndpoints(service, members, ports, endpoints);
      return undefined;
    },
  };

  async function syncSlice(service: StoredObject, members: readonly PodView[], ports: readonly ServicePort[], existing: readonly StoredObject[]): Promise<void> {
    const meta = service.object.metadata;
    const content = {
      addressType: 'IPv4',
      endpoints: members.map((pod) => ({
        addresses: [pod.ip],
        conditions: { ready: pod.ready && !pod.terminating, serving: pod.ready, terminating: pod.terminating },
        ...(pod.nodeName !== undefined && { nodeName: pod.nodeName }),
        targetRef: { kind: 'Pod', namespace: meta.namespace, name: pod.name, uid: pod.uid },
      })),
      ports: ports.map((port) => ({
        ...(port.name !== undefined && { name: port.name }),
        port: resolvedTargetPort(port, members[0]),
        protocol: port.protocol ?? 'TCP',
        ...(port.appProtocol !== undefined && { appProtocol: port.appProtocol }),
      })),
    };
    const [current, ...extra] = existing;
    for (const slice of extra) await ctx.writes.delete(sliceType, slice);
    if (!current) {
      await ctx.writes.create(sliceType, {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${meta.name}-${randomSuffix()}`,
          namespace: meta.namespace,
          labels: { [serviceNameLabel]: meta.name, 'endpointslice.kubernetes.io/managed-by': managedBy },
          ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: meta.name, uid: meta.uid ?? '', controller: true, blockOwnerDeletion: true }],
        },
        ...content,
      });
      return;
    }
    await ctx.writes.update(sliceType, current, (slice) => Object.assign(slice, content));
  }

  async function syncEndpoints(service: StoredObject, members: readonly PodView[], ports: readonly ServicePort[], existing: StoredObject | undefined): Promise<void> {
    const meta = service.object.metadata;
    const address = (pod: PodView): Record<string, unknown> => ({
      ip: pod.ip,
      ...(pod.nodeName !== undefined && { nodeName: pod.nodeName }),
      targetRef: { kind: 'Pod', namespace: meta.namespace, name: pod.name, uid: pod.uid },
    });
    const ready = members.filter((pod) => pod.ready && !pod.terminating);
    const notReady = members.filter((pod) => !pod.ready && !pod.terminating);
    const subsets =
      members.length === 0 || ready.length + notReady.length === 0
        ? []
        : [
            {
              ...(ready.length > 0 && { addresses: ready.map(address) }),
              ...(notReady.length > 0 && { notReadyAddresses: notReady.map(address) }),
              ports: ports.map((port) => ({ ...(port.name !== undefined && { name: port.name }), port: resolvedTargetPort(port, members[0]), protocol: port.protocol ?? 'TCP' })),
            },
          ];
    if (!existing) {
      await ctx.writes.create(endpointsType, {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: meta.name, namespace: meta.namespace, labels: { 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' } },
        ...(subsets.length > 0 && { subsets }),
      });
      return;
    }
    await ctx.writes.update(endpointsType, existing, (endpoints) => {
      const target = endpoints as KubeObject & { subsets?: unknown };
      if (subsets.length > 0) target.subsets = subsets;
      else delete target.subsets;
    });
  }
}

function selectorOf(service: KubeObject): LabelSelector | undefined {
  const selector = (service as { spec?: { selector?: Record<string, string> } }).spec?.selector;
  if (!selector || Object.keys(selector).length === 0) return undefined;
  return LabelSelector.fromLabels(selector);
}

/** A Pod as an endpoint, or undefined while it has no IP or has finished. */
function podView(stored: StoredObject): PodView | undefined {
  const pod = stored.object as KubeObject & {
    spec?: { nodeName?: string; containers?: { ports?: { name?: string; containerPort: number; protocol?: string }[] }[] };
    status?: { podIP?: string; phase?: string; conditions?: { type: string; status: string }[] };
  };
  const ip = pod.status?.podIP;
  const phase = pod.status?.phase;
  if (!ip || phase === 'Succeeded' || phase === 'Failed') return undefined;
  return {
    name: pod.metadata.name,
    uid: pod.metadata.uid ?? '',
    ip,
    nodeName: pod.spec?.nodeName,
    ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
    terminating: pod.metadata.deletionTimestamp !== undefined,
    containerPorts: (pod.spec?.containers ?? []).flatMap((c) => c.ports ?? []),
  };
}

function servicePorts(service: KubeObject): ServicePort[] {
  return ((service as { spec?: { ports?: ServicePort[] } }).spec?.ports ?? []).filter((port) => typeof port.port === 'number');
}

/**
 * A Service port's target: a number, or a named container port resolved on the first member Pod
 * (the Service's port when no Pod names it). Upstream groups Pods whose names resolve differently
 * into separate slices; the simulation keeps one slice per Service.
 */
function resolvedTargetPort(port: ServicePort, pod: PodView | undefined): number {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  const byName = pod?.containerPorts.find((p) => p.name === target);
  if (byName) return byName.containerPort;
  const numeric = Number(target);
  return Number.isInteger(numeric) ? numeric : port.port;
}
