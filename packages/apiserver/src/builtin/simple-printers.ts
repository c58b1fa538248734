/**
 * Printers of the smaller built-in kinds (service accounts, nodes, volumes and claims, endpoints,
 * RBAC) with kube-apiserver's main columns; kinds without one print NAME and AGE.
 */
import type { KubeObject } from '@kubeloop/resource';
import { ageCell, ageColumn, column, createdAtPrinter, nameColumn } from '../table/table-printer.js';
import type { TablePrinter } from '../table/table-printer.js';
import { asMap, asMaps } from './pod-spec-rules.js';

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

const serviceAccountPrinter: TablePrinter = {
  columnDefinitions: [nameColumn, column('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'), ageColumn],
  cells: (obj, now) => [obj.metadata.name, asMaps(obj.secrets).length, ageCell(obj, now)],
};

function nodeStatus(obj: KubeObject): string {
  const ready = asMaps(asMap(obj.status)?.conditions).find((c) => c.type === 'Ready');
  const text = ready?.status === 'True' ? 'Ready' : 'NotReady';
  return asMap(obj.spec)?.unschedulable === true ? `${text},SchedulingDisabled` : text;
}

const nodePrinter: TablePrinter = {
  columnDefinitions: [
    nameColumn,
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    ageColumn,
    column('Version', 'string', 'Kubelet Version reported by the node.'),
  ],
  cells(obj, now) {
    const roles = Object.keys(obj.metadata.labels ?? {})
      .filter((k) => k.startsWith('node-role.kubernetes.io/'))
      .map((k) => k.slice('node-role.kubernetes.io/'.length));
    return [obj.metadata.name, nodeStatus(obj), roles.join(',') || '<none>', ageCell(obj, now), str(asMap(asMap(asMap(obj.status)?.nodeInfo))?.kubeletVersion)];
  },
};

const claimPrinter: TablePrinter = {
  columnDefinitions: [
    nameColumn,
    column('Status', 'string', 'The phase of the claim'),
    column('Volume', 'string', 'The volume bound to the claim'),
    column('Capacity', 'string', 'The capacity of the volume'),
    column('Access Modes', 'string', 'The access modes of the volume'),
    column('StorageClass', 'string', 'The storage class of the claim'),
    ageColumn,
  ],
  cells(obj, now) {
    const spec = asMap(obj.spec) ?? {};
    const status = asMap(obj.status) ?? {};
    const capacity = str(asMap(status.capacity)?.storage);
    const modes = Array.isArray(status.accessModes) ? (status.accessModes as unknown[]).map(String).join(',') : '';
    return [obj.metadata.name, str(status.phase), str(spec.volumeName), capacity, modes, str(spec.storageClassName), ageCell(obj, now)];
  },
};

const endpointsPrinter: TablePrinter = {
  columnDefinitions: [nameColumn, column('Endpoints', 'string', 'Endpoints of the service'), ageColumn],
  cells(obj, now) {
    const endpoints = asMaps(obj.subsets).flatMap((s) => {
      const ports = asMaps(s.ports).map((p) => p.port);
      return asMaps(s.addresses).flatMap((a) => (ports.length ? ports.map((p) => `${str(a.ip)}:${String(p)}`) : [str(a.ip)]));
    });
    return [obj.metadata.name, endpoints.join(',') || '<none>', ageCell(obj, now)];
  },
};

const roleBindingPrinter: TablePrinter = {
  columnDefinitions: [nameColumn, column('Role', 'string', 'Role referenced by this binding'), ageColumn],
  cells: (obj, now) => {
    const ref = asMap(obj.roleRef) ?? {};
    return [obj.metadata.name, `${str(ref.kind)}/${str(ref.name)}`, ageCell(obj, now)];
  },
};

/** Printers by `group/Kind`. */
export const simplePrinters: ReadonlyMap<string, TablePrinter> = new Map<string, TablePrinter>([
  ['/ServiceAccount', serviceAccountPrinter],
  ['/Node', nodePrinter],
  ['/PersistentVolumeClaim', claimPrinter],
  ['/Endpoints', endpointsPrinter],
  ['rbac.authorization.k8s.io/Role', createdAtPrinter],
  ['rbac.authorization.k8s.io/ClusterRole', createdAtPrinter],
  ['rbac.authorization.k8s.io/RoleBinding', roleBindingPrinter],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', roleBindingPrinter],
]);
