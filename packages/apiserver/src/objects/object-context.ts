/** What every object operation works with, and what a request addresses. */
import type { ObjectStore } from '../storage/object-store.js';
import type { ResourceRegistry } from '../types/resource-registry.js';
import type { ResourceType } from '../types/resource-type.js';

/** Receives changes of the served types (CRDs created, changed or deleted). */
export interface TypeListener {
  typeChanged(type: ResourceType, previous: ResourceType | undefined): void;
  typeRemoved(storeKey: string): void;
}

/** The served types, the objects, and who hears of type changes. */
export interface ObjectContext {
  readonly registry: ResourceRegistry;
  readonly store: ObjectStore;
  readonly types: TypeListener;
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
