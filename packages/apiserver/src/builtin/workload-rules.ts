/**
 * Workloads (Deployments, ReplicaSets, StatefulSets, DaemonSets, ReplicationControllers, Jobs,
 * CronJobs): kube-apiserver's defaults, and the checks operators rely on: the selector must be
 * set, must match the template's labels and may not change; replicas are not negative; the
 * template's restart policy suits the kind. Nothing acts on them (no controllers).
 */
import type { KubeObject } from '@kubeloop/resource';
import { LabelSelector } from '@kubeloop/resource';
import type { LabelSelectorObject } from '@kubeloop/resource';
import { jsonEqual } from '../json-value.js';
import { forbiddenValue, invalidValue, requiredValue, unsupportedValue } from '../http/status-error.js';
import type { FieldProblem } from '../http/status-error.js';
import { cronJobPrinter, daemonSetPrinter, deploymentPrinter, jobPrinter, replicaSetPrinter, statefulSetPrinter } from '../table/workload-printers.js';
import type { KindRules } from './kind-rules.js';
import { asMap, defaultPodSpec, podSpecProblems } from './pod-spec-rules.js';

type JsonMap = Record<string, unknown>;

function spec(obj: KubeObject): JsonMap {
  const s = asMap(obj.spec);
  if (s) return s;
  const created: JsonMap = {};
  obj.spec = created;
  return created;
}

/** Go's `%#v` of a string map, as validation messages print labels: `map[string]string{"app":"web"}`. */
function goStringMap(labels: JsonMap | undefined): string {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  return `map[string]string{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(', ')}}`;
}

function invalidRaw(field: string, shown: string, detail: string): FieldProblem {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: ${detail}`, field };
}

function templateOf(s: JsonMap): JsonMap | undefined {
  return asMap(s.template);
}

function defaultTemplate(template: JsonMap | undefined): void {
  if (!template) return;
  const podSpec = asMap(template.spec);
  if (podSpec) defaultPodSpec(podSpec);
}

function selectorObject(value: unknown): LabelSelectorObject | undefined {
  return asMap(value);
}

/**
 * The problems of a selector (a LabelSelector, or a plain label map for ReplicationControllers)
 * and the template at `spec.template`: present, non-empty, matching the template's labels.
 */
function selectorProblems(s: JsonMap, kindWord: string, plainMap: boolean): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const template = templateOf(s);
  const labels = asMap(asMap(template?.metadata)?.labels) as Record<string, string> | undefined;
  let selector: LabelSelector | undefined;
  if (plainMap) {
    const map = asMap(s.selector) as Record<string, string> | undefined;
    if (map && Object.keys(map).length > 0) selector = LabelSelector.fromLabels(map);
    else if (!labels || Object.keys(labels).length === 0) problems.push(requiredValue('spec.selector'));
  } else {
    const object = selectorObject(s.selector);
    if (!object) return problems; // required-field checks report it
    try {
      selector = LabelSelector.fromLabelSelectorObject(object);
    } catch (err) {
      problems.push(invalidRaw('spec.selector', 'v1.LabelSelector{...}', (err as Error).message));
      return problems;
    }
    if (selector.isEmpty()) problems.push(invalidRaw('spec.selector', 'v1.LabelSelector{...}', `empty selector is invalid for ${kindWord}`));
  }
  if (selector && !selector.isEmpty() && template && !selector.matches(labels ?? {})) {
    problems.push(invalidRaw('spec.template.metadata.labels', goStringMap(labels), '`selector` does not match template `labels`'));
  }
  return problems;
}

function replicasProblems(s: JsonMap): FieldProblem[] {
  const replicas = s.replicas;
  return typeof replicas === 'number' && replicas < 0 ? [invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0')] : [];
}

function templateSpecProblems(s: JsonMap, allowedRestartPolicies: readonly string[]): FieldProblem[] {
  const podSpec = asMap(templateOf(s)?.spec);
  if (!podSpec) return [];
  const problems = podSpecProblems(podSpec, 'spec.template.spec');
  const restartPolicy = podSpec.restartPolicy;
  if (typeof restartPolicy === 'string' && !allowedRestartPolicies.includes(restartPolicy) && !problems.some((p) => p.field === 'spec.template.spec.restartPolicy')) {
    problems.push(unsupportedValue('spec.template.spec.restartPolicy', restartPolicy, allowedRestartPolicies));
  }
  return problems;
}

function immutableSelector(obj: KubeObject, old: KubeObject | undefined): FieldProblem[] {
  if (!old) return [];
  const before = asMap(old.spec)?.selector;
  const after = asMap(obj.spec)?.selector;
  return jsonEqual(before, after) ? [] : [invalidRaw('spec.selector', 'v1.LabelSelector{...}', 'field is immutable')];
}

/** The selector of a LabelSelector-based workload as a Scale's `status.selector`. */
function labelSelectorText(obj: KubeObject): string {
  const object = selectorObject(asMap(obj.spec)?.selector);
  if (!object) return '';
  try {
    return LabelSelector.fromLabelSelectorObject(object).toString();
  } catch {
    return '';
  }
}

const always = ['Always'];

/**
 * The checks of a workload that runs `spec.replicas` copies of its template: the selector (whose
 * messages name `selectorKind`), replicas, the template (restartPolicy Always), an unchanged selector.
 */
function replicatedWorkloadProblems(selectorKind: string): NonNullable<KindRules['validate']> {
  return (obj, old) => {
    const s = spec(obj);
    return [...selectorProblems(s, selectorKind, false), ...replicasProblems(s), ...templateSpecProblems(s, always), ...immutableSelector(obj, old)];
  };
}

export const deploymentRules: KindRules = {
  defaults(obj) {
    const s = spec(obj);
    s.replicas ??= 1;
    const strategy = asMap(s.strategy) ?? {};
    strategy.type ??= 'RollingUpdate';
    if (strategy.type === 'RollingUpdate') {
      const rolling = asMap(strategy.rollingUpdate) ?? {};
      rolling.maxUnavailable ??= '25%';
      rolling.maxSurge ??= '25%';
      strategy.rollingUpdate = rolling;
    }
    s.strategy = strategy;
    s.revisionHistoryLimit ??= 10;
    s.progressDeadlineSeconds ??= 600;
    defaultTemplate(templateOf(s));
  },
  validate: replicatedWorkloadProblems('deployment'),
  scaleSelector: labelSelectorText,
  printer: deploymentPrinter,
};

export const replicaSetRules: KindRules = {
  defaults(obj) {
    const s = spec(obj);
    s.replicas ??= 1;
    defaultTemplate(templateOf(s));
  },
  validate: replicatedWorkloadProblems('deployment'),
  scaleSelector: labelSelectorText,
  printer: replicaSetPrinter,
};

export const statefulSetRules: KindRules = {
  defaults(obj) {
    const s = spec(obj);
    s.replicas ??= 1;
    s.podManagementPolicy ??= 'OrderedReady';
    const strategy = asMap(s.updateStrategy) ?? {};
    strategy.type ??= 'RollingUpdate';
    if (strategy.type === 'RollingUpdate') strategy.rollingUpdate = { partition: 0, ...asMap(strategy.rollingUpdate) };
    s.updateStrategy = strategy;
    s.revisionHistoryLimit ??= 10;
    s.persistentVolumeClaimRetentionPolicy ??= { whenDeleted: 'Retain', whenScaled: 'Retain' };
    defaultTemplate(templateOf(s));
  },
  validate: replicatedWorkloadProblems('statefulset'),
  scaleSelector: labelSelectorText,
  printer: statefulSetPrinter,
};

export const daemonSetRules: KindRules = {
  defaults(obj) {
    const s = spec(obj);
    const strategy = asMap(s.updateStrategy) ?? {};
    strategy.type ??= 'RollingUpdate';
    if (strategy.type === 'RollingUpdate') strategy.rollingUpdate = { maxUnavailable: 1, maxSurge: 0, ...asMap(strategy.rollingUpdate) };
    s.updateStrategy = strategy;
    s.revisionHistoryLimit ??= 10;
    defaultTemplate(templateOf(s));
  },
  validate: (obj, old) => {
    const s = spec(obj);
    return [...selectorProblems(s, 'daemonset', false), ...templateSpecProblems(s, always), ...immutableSelector(obj, old)];
  },
  printer: daemonSetPrinter,
};

export const replicationControllerRules: KindRules = {
  defaults(obj) {
    const s = spec(obj);
    s.replicas ??= 1;
    // An RC without a selector selects its template's labels (and the labels default to them too).
    const labels = asMap(asMap(templateOf(s)?.metadata)?.labels);
    if (labels && !asMap(s.selector)) s.selector = { ...labels };
    if (labels && !asMap(obj.metadata.labels)) obj.metadata.labels = { ...(labels as Record<string, string>) };
    defaultTemplate(templateOf(s));
  },
  validate: (obj) => {
    const s = spec(obj);
    return [...selectorProblems(s, 'replicationcontroller', true), ...replicasProblems(s), ...templateSpecProblems(s, always)];
  },
  scaleSelector: (obj) => LabelSelector.fromLabels((asMap(asMap(obj.spec)?.selector) ?? {}) as Record<string, string>).toString(),
  printer: replicaSetPrinter,
};

const jobRestartPolicies = ['OnFailure', 'Never'];

/** The labels kube-apiserver puts on a Job's pods and selects them by (unless `manualSelector`). */
function jobLabels(obj: KubeObject): Record<string, string> {
  const uid = obj.metadata.uid ?? '';
  return { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': obj.metadata.name, 'controller-uid': uid, 'job-name': obj.metadata.name };
}

export const jobRules: KindRules = {
  defaults(obj, old) {
    const s = spec(obj);
    if (s.completions === undefined && s.parallelism === undefined) {
      s.completions = 1;
      s.parallelism = 1;
    }
    s.parallelism ??= 1;
    s.backoffLimit ??= 6;
    s.completionMode ??= 'NonIndexed';
    s.suspend ??= false;
    s.podReplacementPolicy ??= 'TerminatingOrFailed';
    if (!old && s.manualSelector !== true && obj.metadata.uid) {
      const labels = jobLabels(obj);
      s.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': labels['batch.kubernetes.io/controller-uid'] } };
      const template = templateOf(s);
      if (template) {
        const meta = asMap(template.metadata) ?? {};
        meta.labels = { ...asMap(meta.labels), ...labels };
        template.metadata = meta;
      }
    }
    defaultTemplate(templateOf(s));
  },
  validate: (obj, old) => {
    const s = spec(obj);
    const problems = templateSpecProblems(s, jobRestartPolicies);
    if (s.manualSelector === true) problems.push(...selectorProblems(s, 'job', false));
    if (old) {
      problems.push(...immutableSelector(obj, old));
      const before = asMap(old.spec)?.template;
      if (!jsonEqual(before, s.template)) problems.push(forbiddenValue('spec.template', 'field is immutable'));
    }
    return problems;
  },
  printer: jobPrinter,
};

export const cronJobRules: KindRules = {
  defaults(obj) {
    const s = spec(obj);
    s.concurrencyPolicy ??= 'Allow';
    s.suspend ??= false;
    s.successfulJobsHistoryLimit ??= 3;
    s.failedJobsHistoryLimit ??= 1;
    const jobSpec = asMap(asMap(s.jobTemplate)?.spec);
    if (jobSpec) defaultTemplate(asMap(jobSpec.template));
  },
  validate: (obj) => {
    const jobSpec = asMap(asMap(spec(obj).jobTemplate)?.spec);
    const podSpec = asMap(asMap(jobSpec?.template)?.spec);
    if (!podSpec) return [];
    const problems = podSpecProblems(podSpec, 'spec.jobTemplate.spec.template.spec');
    const restartPolicy = podSpec.restartPolicy;
    if (typeof restartPolicy === 'string' && !jobRestartPolicies.includes(restartPolicy)) {
      problems.push(unsupportedValue('spec.jobTemplate.spec.template.spec.restartPolicy', restartPolicy, jobRestartPolicies));
    }
    return problems;
  },
  printer: cronJobPrinter,
};
