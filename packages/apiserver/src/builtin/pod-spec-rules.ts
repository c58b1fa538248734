/**
 * Defaulting and validation of pod specs (a Pod's `spec`, and the `template.spec` of every
 * workload), with kube-apiserver's defaults (`SetDefaults_PodSpec`, `SetDefaults_Container`,
 * probes, volume modes) and the checks operators meet first (images, container names, restart policy).
 */
import { invalidValue, requiredValue, unsupportedValue } from '../http/status-error.js';
import type { FieldProblem } from '../http/status-error.js';

type JsonMap = Record<string, unknown>;

/** The value as a map, or undefined. */
export function asMap(value: unknown): JsonMap | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonMap) : undefined;
}

/** The value as a list of maps (non-maps skipped). */
export function asMaps(value: unknown): JsonMap[] {
  return Array.isArray(value) ? value.map(asMap).filter((m): m is JsonMap => m !== undefined) : [];
}

function defaultProbe(probe: unknown): void {
  const p = asMap(probe);
  if (!p) return;
  p.timeoutSeconds ??= 1;
  p.periodSeconds ??= 10;
  p.successThreshold ??= 1;
  p.failureThreshold ??= 3;
  const httpGet = asMap(p.httpGet);
  if (httpGet) {
    httpGet.path ??= '/';
    httpGet.scheme ??= 'HTTP';
  }
}

/** `Always` for an image without a tag or tagged `latest`, else `IfNotPresent` (digests count as tags). */
function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  return colon < 0 || lastSegment.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(container: JsonMap): void {
  container.terminationMessagePath ??= '/dev/termination-log';
  container.terminationMessagePolicy ??= 'File';
  container.imagePullPolicy ??= defaultPullPolicy(container.image);
  for (const port of asMaps(container.ports)) port.protocol ??= 'TCP';
  for (const env of asMaps(container.env)) {
    const fieldRef = asMap(asMap(env.valueFrom)?.fieldRef);
    if (fieldRef) fieldRef.apiVersion ??= 'v1';
  }
  defaultProbe(container.livenessProbe);
  defaultProbe(container.readinessProbe);
  defaultProbe(container.startupProbe);
}

const modeVolumeSources = ['configMap', 'secret', 'projected', 'downwardAPI'];

/** Applies the pod spec defaults in place. */
export function defaultPodSpec(spec: JsonMap): void {
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  for (const field of ['containers', 'initContainers']) for (const c of asMaps(spec[field])) defaultContainer(c);
  for (const volume of asMaps(spec.volumes)) {
    for (const source of modeVolumeSources) {
      const s = asMap(volume[source]);
      if (s) s.defaultMode ??= 420;
    }
  }
}

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const restartPolicies = ['Always', 'OnFailure', 'Never'];

/** The problems of a pod spec at `path` (`spec`, `spec.template.spec`...). */
export function podSpecProblems(spec: JsonMap, path: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const field of ['initContainers', 'containers']) {
    const seen = new Set<string>();
    asMaps(spec[field]).forEach((c, i) => {
      const at = `${path}.${field}[${i}]`;
      const name = c.name;
      if (typeof name === 'string' && name !== '') {
        if (name.length > 63 || !dnsLabel.test(name)) {
          problems.push(invalidValue(`${at}.name`, name, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
        } else if (seen.has(name)) {
          problems.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(name)}`, field: `${at}.name` });
        }
        seen.add(name);
      }
      if (typeof c.image !== 'string' || c.image.trim() === '') problems.push(requiredValue(`${at}.image`));
      asMaps(c.ports).forEach((p, j) => {
        const port = p.containerPort;
        if (typeof port === 'number' && (port < 1 || port > 65535)) problems.push(invalidValue(`${at}.ports[${j}].containerPort`, port, 'must be between 1 and 65535, inclusive'));
      });
    });
  }
  const restartPolicy = spec.restartPolicy;
  if (typeof restartPolicy === 'string' && !restartPolicies.includes(restartPolicy)) problems.push(unsupportedValue(`${path}.restartPolicy`, restartPolicy, restartPolicies));
  return problems;
}
