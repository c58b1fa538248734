/** What every object operation works with, and what a request addresses. */
import type { KubeObject } from '@kubeloop/resource';
import type { ObjectStore } from '../storage/object-store.js';
import type { ResourceRegistry } from '../types/resource-registry.js';
import type { ResourceType } from '../types/resource-type.js';
import type { OffLoopWorker } from '../worker/off-loop-worker.js';

/** Receives changes of the served types (CRDs created, changed or deleted). */
export interface TypeListener {
  typeChanged(type: ResourceType, previous: ResourceType | undefined): void;
  typeRemoved(storeKey: string): void;
}

/** How long a delete of `object` waits before it is removed: the grace period of a Pod on a simulated kubelet. */
export type GracefulDeletion = (type: ResourceType, object: KubeObject, requestedSeconds: number | undefined) => GracePeriod | undefined;

/** A delete that marks the object and leaves its removal to another component once the period is over. */
export interface GracePeriod {
  /** `deletionGracePeriodSeconds`. */
  readonly seconds: number;
  /** `deletionTimestamp`: when the period ends (RFC 3339). */
  readonly deletionTimestamp: string;
}

/** The served types, the objects, and who hears of type changes. */
export interface ObjectContext {
  readonly registry: ResourceRegistry;
  readonly store: ObjectStore;
  readonly types: TypeListener;
  /** Undefined (the default, as envtest): every delete without finalizers removes the object at once. */
  readonly gracefulDeletion?: GracefulDeletion | undefined;
  /** Where large patches are computed off the event loop. Undefined (the default): in the request's turn. */
  readonly offLoop?: OffLoopWorker | undefined;
}

/** The objects of one type a request addresses, in the API version it speaks. */
export interface CollectionTarget {
  readonly type: ResourceType;
  /** The version of the request's URL: bodies are read and answered at it. */
  readonly version: string;
  /** The namespace of the URL; undefined for cluster-scoped types and requests across all namespaces. */
  readonly namespace: string | undefined;
}

/** One object a request addresses by name. */
export interface ObjectTarget extends CollectionTarget {
  readonly name: string;
}

/** The store's key of an object: `namespace/name`, or the name of a cluster-scoped one. */
export function objectKeyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
