/** What every object operation works with, and the small helpers they share. */
import type { KubeObject } from '@kubeloop/resource';
import { cloneJson } from '../json-value.js';
import type { ObjectStore } from '../object-store.js';
import type { ResourceRegistry } from '../resource-registry.js';
import type { ResourceType } from '../resource-type.js';

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

export function objectKeyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function nowTime(): string {
  return `${new Date().toISOString().slice(0, 19)}Z`;
}

export function clone(obj: KubeObject): KubeObject {
  return cloneJson(obj);
}
