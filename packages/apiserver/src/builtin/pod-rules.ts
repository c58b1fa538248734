/**
 * Pods: the pod spec defaults and checks, `status.phase: Pending` and the QoS class on create (no
 * scheduler or kubelet moves them on), and kube-apiserver's rule that a pod's spec may change only
 * in container images, `activeDeadlineSeconds` and added tolerations.
 */
import { jsonEqual } from '../json-value.js';
import { forbiddenValue } from '../http/status-error.js';
import type { FieldProblem } from '../http/status-error.js';
import { podPrinter } from '../table/workload-printers.js';
import type { KindRules } from './kind-rules.js';
import { asMap, asMaps, defaultPodSpec, podSpecProblems } from './pod-spec-rules.js';

/** BestEffort without requests or limits, Guaranteed when every container limits cpu and memory at its requests, else Burstable. */
function qosClass(spec: Record<string, unknown>): string {
  const containers = [...asMaps(spec.containers), ...asMaps(spec.initContainers)];
  const resources = containers.map((c) => asMap(c.resources) ?? {});
  if (resources.every((r) => Object.keys(asMap(r.requests) ?? {}).length === 0 && Object.keys(asMap(r.limits) ?? {}).length === 0)) return 'BestEffort';
  const guaranteed = resources.every((r) => {
    const limits = asMap(r.limits) ?? {};
    const requests = { ...limits, ...asMap(r.requests) };
    // Decoding keeps quantities as strings.
    return ['cpu', 'memory'].every((k) => typeof limits[k] === 'string' && limits[k] === requests[k]);
  });
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** The spec with what an update may change blanked out, to compare the rest. */
function immutablePart(spec: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...spec, activeDeadlineSeconds: undefined, tolerations: undefined };
  for (const field of ['containers', 'initContainers']) copy[field] = asMaps(spec[field]).map((c) => ({ ...c, image: undefined }));
  return JSON.parse(JSON.stringify(copy)) as Record<string, unknown>;
}

export const podRules: KindRules = {
  defaults(obj, old) {
    const spec = asMap(obj.spec) ?? {};
    obj.spec = spec;
    defaultPodSpec(spec);
    if (!old) {
      spec.enableServiceLinks ??= true;
      spec.preemptionPolicy ??= 'PreemptLowerPriority';
      spec.priority ??= 0;
      obj.status = { phase: 'Pending', qosClass: qosClass(spec) };
    }
  },
  validate(obj, old) {
    const spec = asMap(obj.spec) ?? {};
    const problems: FieldProblem[] = podSpecProblems(spec, 'spec');
    if (old && !jsonEqual(immutablePart(spec), immutablePart(asMap(old.spec) ?? {}))) {
      problems.push(
        forbiddenValue(
          'spec',
          'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
        ),
      );
    }
    return problems;
  },
  printer: podPrinter,
};
