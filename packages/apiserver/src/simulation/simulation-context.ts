/** What every simulated controller and the simulated kubelet work with. */
import type { Clock } from '@kubeloop/resource';
import type { StoredObject } from '../storage/change-event.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { ResourceRegistry } from '../types/resource-registry.js';
import { storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import type { ResolvedSimulation } from './simulate-options.js';
import type { SimulatedWrites } from './simulated-writes.js';
import type { WorkloadFaults } from './kubelet/workload-faults.js';

/** The simulation's view of the server. */
export interface SimulationContext {
  readonly registry: ResourceRegistry;
  /** Reads (writes go through {@link SimulationContext.writes}). */
  readonly store: ObjectStore;
  /** The simulation's time: every delay is a timer on it. */
  readonly clock: Clock;
  /** Writes as `kube-controller-manager`; `writes.as('kubelet')` for the kubelet's. */
  readonly writes: SimulatedWrites;
  readonly settings: ResolvedSimulation;
  /** The CA certificate (PEM) published in every namespace's `kube-root-ca.crt`. */
  readonly caCertificate: string;
  readonly logger: (line: string) => void;
  /** The workload faults in place (`server.faults.imagePullFailure(...)`...). */
  readonly workloadFaults: WorkloadFaults;
}

/** The served built-in type of `group`/`kind`; throws when it is not served (a programming error). */
export function builtinType(ctx: SimulationContext, apiVersion: string, kind: string): ResourceType {
  const type = ctx.registry.findKind(apiVersion, kind);
  if (!type) throw new Error(`the simulation needs ${kind} (${apiVersion}), which this server does not serve`);
  return type;
}

/** The stored objects of a type in one namespace (all namespaces when undefined). */
export function* objectsIn(ctx: SimulationContext, type: ResourceType, namespace: string | undefined): Iterable<StoredObject> {
  for (const stored of ctx.store.values(storeKeyOf(type))) {
    if (namespace === undefined || stored.object.metadata.namespace === namespace) yield stored;
  }
}

/** The stored object of a type by store key (`namespace/name`, or the name). */
export function storedAt(ctx: SimulationContext, type: ResourceType, key: string): StoredObject | undefined {
  return ctx.store.get(storeKeyOf(type), key);
}

/** An RFC 3339 timestamp (seconds) of the simulation's now, as Kubernetes writes `metav1.Time`. */
export function timestampNow(ctx: SimulationContext): string {
  return new Date(Math.floor(ctx.clock.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
