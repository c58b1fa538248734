/** The core `v1` Namespace kind (cluster-scoped). */
import { defineKindFor } from '../define-kind.js';
import type { KubeObject } from '../object.js';

/** `Namespace.spec`. */
export interface NamespaceSpec {
  /** Finalizers the namespace controller runs before the namespace goes away (`kubernetes`). */
  finalizers?: string[];
}

/** A condition in `Namespace.status.conditions`. */
export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** `Namespace.status`. */
export interface NamespaceStatus {
  phase?: 'Active' | 'Terminating' | (string & {});
  conditions?: NamespaceCondition[];
}

/** A Namespace object. */
export type Namespace = KubeObject<NamespaceSpec, NamespaceStatus>;

/** `v1` Namespace: cluster-scoped, plural `namespaces`, short name `ns`. */
export const NamespaceKind = defineKindFor<Namespace>({ group: '', version: 'v1', kind: 'Namespace', scope: 'Cluster', shortNames: ['ns'] });
