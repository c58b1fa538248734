/**
 * Legacy discovery documents (`/api`, `/apis`, `/api/v1`, `/apis/G`, `/apis/G/V`) built from the
 * registry. kubectl asks for aggregated discovery first; a plain `application/json` answer makes
 * it fall back to these, one request per group-version.
 */
import type { ResourceRegistry, ServedGroup } from '../types/resource-registry.js';
import type { ResourceType } from '../types/resource-type.js';

/** `/version`. */
export const versionInfo = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-kubeloop',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-01-01T00:00:00Z',
  goVersion: 'node',
  compiler: 'kubeloop',
  platform: `${process.platform}/${process.arch}`,
};

/** `/api`. */
export function coreVersions(serverAddress: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupDocument(group: ServedGroup): Record<string, unknown> {
  const versions = group.versions.map((version) => ({ groupVersion: `${group.name}/${version}`, version }));
  return { name: group.name, versions, preferredVersion: versions[0] };
}

/** `/apis`. */
export function groupList(registry: ResourceRegistry): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: registry.groups().map(groupDocument) };
}

/** `/apis/G`, or undefined when the group is not served. */
export function groupInfo(registry: ResourceRegistry, name: string): object | undefined {
  const group = registry.groups().find((g) => g.name === name);
  return group ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group) } : undefined;
}

function resourceEntries(type: ResourceType): Record<string, unknown>[] {
  const main: Record<string, unknown> = { name: type.plural, singularName: type.singular, namespaced: type.namespaced, kind: type.kind, verbs: type.verbs };
  if (type.shortNames.length > 0) main.shortNames = type.shortNames;
  if (type.categories.length > 0) main.categories = type.categories;
  // The main entry first: client-node's KubernetesObjectApi takes the first entry with a matching kind.
  const entries = [main];
  if (type.statusSubresource) {
    entries.push({ name: `${type.plural}/status`, singularName: '', namespaced: type.namespaced, kind: type.kind, verbs: ['get', 'patch', 'update'] });
  }
  if (type.scale) {
    entries.push({ name: `${type.plural}/scale`, singularName: '', namespaced: type.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  }
  return entries;
}

/** `/api/v1` or `/apis/G/V`, or undefined when the group-version is not served. */
export function resourceList(registry: ResourceRegistry, group: string, version: string): object | undefined {
  const types = registry.typesIn(group, version);
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: types.flatMap(resourceEntries),
  };
}
