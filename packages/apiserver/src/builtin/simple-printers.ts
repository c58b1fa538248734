/**
 * Printers of the smaller built-in kinds (service accounts, nodes, volumes and claims, endpoints,
 * endpoint slices, RBAC) with kube-apiserver's main columns, each declared as its columns; kinds without one print NAME and AGE.
 */
import type { KubeObject } from '@kubeloop/resource';
import { text } from '../table/cell-values.js';
import { ageCellColumn, createdAtPrinter, declaredPrinter, nameCellColumn } from '../table/table-printer.js';
import type { TablePrinter } from '../table/table-printer.js';
import { asMap, asMaps } from './pod-spec-rules.js';

const serviceAccountPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  {
    name: 'Secrets',
    type: 'string',
    description: 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
    cell: ({ object }) => asMaps(object.secrets).length,
  },
  ageCellColumn,
]);

function nodeStatus(obj: KubeObject): string {
  const ready = asMaps(asMap(obj.status)?.conditions).find((c) => c.type === 'Ready');
  const status = ready?.status === 'True' ? 'Ready' : 'NotReady';
  return asMap(obj.spec)?.unschedulable === true ? `${status},SchedulingDisabled` : status;
}

function nodeRoles(obj: KubeObject): string {
  const roles = Object.keys(obj.metadata.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length));
  return roles.join(',') || '<none>';
}

const nodePrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'Status', type: 'string', description: 'The status of the node', cell: ({ object }) => nodeStatus(object) },
  { name: 'Roles', type: 'string', description: 'The roles of the node', cell: ({ object }) => nodeRoles(object) },
  ageCellColumn,
  { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.', cell: ({ object }) => text(asMap(asMap(asMap(object.status)?.nodeInfo))?.kubeletVersion) },
]);

const claimPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'Status', type: 'string', description: 'The phase of the claim', cell: ({ status }) => text(status.phase) },
  { name: 'Volume', type: 'string', description: 'The volume bound to the claim', cell: ({ spec }) => text(spec.volumeName) },
  { name: 'Capacity', type: 'string', description: 'The capacity of the volume', cell: ({ status }) => text(asMap(status.capacity)?.storage) },
  {
    name: 'Access Modes',
    type: 'string',
    description: 'The access modes of the volume',
    cell: ({ status }) => (Array.isArray(status.accessModes) ? (status.accessModes as unknown[]).map(String).join(',') : ''),
  },
  { name: 'StorageClass', type: 'string', description: 'The storage class of the claim', cell: ({ spec }) => text(spec.storageClassName) },
  ageCellColumn,
]);

function endpointsText(obj: KubeObject): string {
  const endpoints = asMaps(obj.subsets).flatMap((s) => {
    const ports = asMaps(s.ports).map((p) => p.port);
    return asMaps(s.addresses).flatMap((a) => (ports.length ? ports.map((p) => `${text(a.ip)}:${String(p)}`) : [text(a.ip)]));
  });
  return endpoints.join(',') || '<none>';
}

const endpointsPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'Endpoints', type: 'string', description: 'Endpoints of the service', cell: ({ object }) => endpointsText(object) },
  ageCellColumn,
]);

/** kube-apiserver's list cell: at most three values, then `+ N more...`; `<unset>` when empty. */
function firstThree(values: readonly string[]): string {
  if (values.length === 0) return '<unset>';
  const shown = values.slice(0, 3).join(',');
  return values.length > 3 ? `${shown} + ${values.length - 3} more...` : shown;
}

const endpointSlicePrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'AddressType', type: 'string', description: 'The IP protocol for this slice', cell: ({ object }) => text(object.addressType) },
  {
    name: 'Ports',
    type: 'string',
    description: 'Enumerated ports on the slice',
    cell: ({ object }) => firstThree(asMaps(object.ports).map((p) => (typeof p.port === 'number' ? String(p.port) : typeof p.name === 'string' ? p.name : '*'))),
  },
  {
    name: 'Endpoints',
    type: 'string',
    description: 'First three endpoints on the slice',
    cell: ({ object }) => firstThree(asMaps(object.endpoints).flatMap((e) => (Array.isArray(e.addresses) ? (e.addresses as unknown[]).map(String) : []))),
  },
  ageCellColumn,
]);

const roleBindingPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  {
    name: 'Role',
    type: 'string',
    description: 'Role referenced by this binding',
    cell: ({ object }) => {
      const ref = asMap(object.roleRef) ?? {};
      return `${text(ref.kind)}/${text(ref.name)}`;
    },
  },
  ageCellColumn,
]);

/** Printers by `group/Kind`. */
export const simplePrinters: ReadonlyMap<string, TablePrinter> = new Map<string, TablePrinter>([
  ['/ServiceAccount', serviceAccountPrinter],
  ['/Node', nodePrinter],
  ['/PersistentVolumeClaim', claimPrinter],
  ['/Endpoints', endpointsPrinter],
  ['discovery.k8s.io/EndpointSlice', endpointSlicePrinter],
  ['rbac.authorization.k8s.io/Role', createdAtPrinter],
  ['rbac.authorization.k8s.io/ClusterRole', createdAtPrinter],
  ['rbac.authorization.k8s.io/RoleBinding', roleBindingPrinter],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', roleBindingPrinter],
]);
