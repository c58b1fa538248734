/**
 * The RBAC rules of an operator, for exactly what it uses: its own kinds (read, update, status, finalizers),
 * what it owns (full access), what it only reads, core Events (it records them) and Leases (leader election,
 * and with more than one replica the shard ring's, in its own namespace only).
 */
import type { CustomResourceDefinition } from '@kubeloop/resource';
import type { ResourceRef } from '../project/project-config.js';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const READ = ['get', 'list', 'watch'];
const FULL = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** Groups resources of the same group into one rule, in the order first seen. */
function byGroup(refs: readonly ResourceRef[], verbs: string[]): PolicyRule[] {
  const groups = new Map<string, string[]>();
  for (const { group, resource } of refs) {
    const resources = groups.get(group) ?? [];
    if (!resources.includes(resource)) resources.push(resource);
    groups.set(group, resources);
  }
  return [...groups].map(([group, resources]) => ({ apiGroups: [group], resources, verbs }));
}

/** The cluster-wide rules: the operator watches its kinds in every namespace. */
export function clusterRules(crds: readonly CustomResourceDefinition[], owns: readonly ResourceRef[], reads: readonly ResourceRef[]): PolicyRule[] {
  const own = crds.map((crd) => ({ group: crd.spec!.group, resource: crd.spec!.names.plural }));
  return [
    ...byGroup(own, ['get', 'list', 'watch', 'update', 'patch']),
    ...byGroup(
      own.map((r) => ({ ...r, resource: `${r.resource}/status` })),
      ['get', 'update', 'patch'],
    ),
    ...byGroup(
      own.map((r) => ({ ...r, resource: `${r.resource}/finalizers` })),
      ['update'],
    ),
    ...byGroup(owns, FULL),
    ...byGroup(reads, READ),
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  ];
}

/**
 * The rules in the operator's own namespace: Leases. One replica needs them for leader election only; more
 * than one may run a shard ring (runOperator `sharding`), whose replicas also delete their member Lease when
 * they stop, so that the others take its slots over at once instead of after the lease expires.
 */
export function leaseRules(replicas: number): PolicyRule[] {
  const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', ...(replicas > 1 ? ['delete'] : [])];
  return [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs }];
}
