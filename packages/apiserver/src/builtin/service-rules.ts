/**
 * Services: kube-apiserver's defaults (type ClusterIP, session affinity, port protocol and target
 * port, IP family fields) and allocations (a cluster IP from 10.96.0.0/12, node ports from
 * 30000-32767 for NodePort and LoadBalancer services), kept across updates that leave them out,
 * as the real registry does; and the checks of ports, type and cluster IP changes. Allocation is
 * random without a registry of used values: collisions are possible but unlikely at test sizes.
 */
import { randomInt } from 'node:crypto';
import type { KubeObject } from '@kubeloop/resource';
import { invalidValue, requiredValue, unsupportedValue } from '../http/status-error.js';
import type { FieldProblem } from '../http/status-error.js';
import { servicePrinter } from '../table/workload-printers.js';
import type { KindRules } from './kind-rules.js';
import { asMap, asMaps } from './pod-spec-rules.js';

const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

function allocateClusterIp(): string {
  // 10.96.0.0/12 without the network address and 10.96.0.1 (the `kubernetes` service's).
  const offset = randomInt(2, 1 << 20);
  return `10.${96 + (offset >> 16)}.${(offset >> 8) & 255}.${offset & 255}`;
}

function defaults(obj: KubeObject, old: KubeObject | undefined): void {
  const spec = asMap(obj.spec) ?? {};
  obj.spec = spec;
  const oldSpec = asMap(old?.spec);
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  const type = spec.type;
  const oldPorts = asMaps(oldSpec?.ports);
  for (const port of asMaps(spec.ports)) {
    port.protocol ??= 'TCP';
    port.targetPort ??= port.port;
    if (type === 'NodePort' || type === 'LoadBalancer') {
      const before = oldPorts.find((p) => p.port === port.port && (p.protocol ?? 'TCP') === port.protocol)?.nodePort;
      port.nodePort ??= before ?? randomInt(30000, 32768);
    }
  }
  if (type === 'ExternalName') return;
  if (spec.clusterIP === undefined || spec.clusterIP === '') {
    const before = oldSpec?.clusterIP;
    spec.clusterIP = typeof before === 'string' && before !== '' ? before : allocateClusterIp();
  }
  if (!Array.isArray(spec.clusterIPs) || spec.clusterIPs.length === 0) spec.clusterIPs = [spec.clusterIP];
  spec.ipFamilies ??= ['IPv4'];
  spec.ipFamilyPolicy ??= 'SingleStack';
  spec.internalTrafficPolicy ??= 'Cluster';
  if (type === 'NodePort' || type === 'LoadBalancer') spec.externalTrafficPolicy ??= 'Cluster';
  if (type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
  if (!old) obj.status ??= { loadBalancer: {} };
}

function validate(obj: KubeObject, old: KubeObject | undefined): FieldProblem[] {
  const spec = asMap(obj.spec) ?? {};
  const problems: FieldProblem[] = [];
  const type = spec.type;
  if (typeof type === 'string' && !serviceTypes.includes(type)) problems.push(unsupportedValue('spec.type', type, serviceTypes));
  const ports = asMaps(spec.ports);
  if (ports.length === 0 && type !== 'ExternalName' && spec.clusterIP !== 'None') problems.push(requiredValue('spec.ports'));
  ports.forEach((p, i) => {
    if (ports.length > 1 && (typeof p.name !== 'string' || p.name === '')) problems.push(requiredValue(`spec.ports[${i}].name`));
    const port = p.port;
    if (typeof port === 'number' && (port < 1 || port > 65535)) problems.push(invalidValue(`spec.ports[${i}].port`, port, 'must be between 1 and 65535, inclusive'));
  });
  if (type === 'ExternalName' && (typeof spec.externalName !== 'string' || spec.externalName === '')) problems.push(requiredValue('spec.externalName'));
  const before = asMap(old?.spec)?.clusterIP;
  if (typeof before === 'string' && before !== '' && type !== 'ExternalName' && spec.clusterIP !== before) {
    problems.push({ reason: 'FieldValueInvalid', message: `Invalid value: []string{${JSON.stringify(spec.clusterIP)}}: may not change once set`, field: 'spec.clusterIPs[0]' });
  }
  return problems;
}

export const serviceRules: KindRules = { defaults, validate, printer: servicePrinter };
