/**
 * What a Pod asks of a node, as the scheduler sums it: per resource, the larger of the sum over its
 * containers and the largest init container's (init containers run one at a time, before them),
 * plus the Pod's `overhead`. Requests default to limits, as the API server defaults them.
 */
import { schedulerUnits } from './quantities.js';

interface ContainerResources {
  readonly resources?: { readonly requests?: Record<string, unknown>; readonly limits?: Record<string, unknown> };
}

/** The spec fields the scheduler reads. */
export interface PodSpecForScheduling {
  readonly containers?: readonly ContainerResources[];
  readonly initContainers?: readonly ContainerResources[];
  readonly overhead?: Record<string, unknown>;
}

function requestsOf(container: ContainerResources): Map<string, number> {
  const requested = { ...container.resources?.limits, ...container.resources?.requests };
  return new Map(Object.entries(requested).map(([resource, text]) => [resource, schedulerUnits(resource, text)]));
}

/** The Pod's requests by resource, in scheduler units (see `quantities.ts`). */
export function podRequests(spec: PodSpecForScheduling): Map<string, number> {
  const total = new Map<string, number>();
  for (const container of spec.containers ?? []) {
    for (const [resource, units] of requestsOf(container)) total.set(resource, (total.get(resource) ?? 0) + units);
  }
  for (const container of spec.initContainers ?? []) {
    for (const [resource, units] of requestsOf(container)) total.set(resource, Math.max(total.get(resource) ?? 0, units));
  }
  for (const [resource, text] of Object.entries(spec.overhead ?? {})) total.set(resource, (total.get(resource) ?? 0) + schedulerUnits(resource, text));
  return total;
}
