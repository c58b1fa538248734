/**
 * Table printers of pods, services and workloads, with kube-apiserver's columns (`kubectl get`
 * and `-o wide`). Cells come from the stored status; nothing updates it here (no controllers),
 * so a Deployment shows `0/1` READY until a test writes its status.
 */
import type { KubeObject } from '@kubeloop/resource';
import { LabelSelector } from '@kubeloop/resource';
import { humanDuration, timestampAge } from './human-duration.js';
import { ageCell, ageColumn, column, nameColumn } from './table-printer.js';
import type { TablePrinter } from './table-printer.js';

type JsonMap = Record<string, unknown>;

function map(value: unknown): JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonMap) : {};
}

function maps(value: unknown): JsonMap[] {
  return Array.isArray(value) ? value.map(map) : [];
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function containersOf(podSpec: JsonMap): { names: string; images: string } {
  const containers = maps(podSpec.containers);
  return { names: containers.map((c) => str(c.name)).join(','), images: containers.map((c) => str(c.image)).join(',') };
}

function selectorText(value: unknown): string {
  const object = map(value);
  if (Object.keys(object).length === 0) return '<none>';
  try {
    return LabelSelector.fromLabelSelectorObject(object).toString() || '<none>';
  } catch {
    return '<invalid>';
  }
}

function labelMapText(value: unknown): string {
  const entries = Object.entries(map(value));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${String(v)}`).join(',');
}

const containersColumn = column('Containers', 'string', 'Names of each container in the template.', { priority: 1 });
const imagesColumn = column('Images', 'string', 'Images referenced by each container in the template.', { priority: 1 });
const selectorColumn = column('Selector', 'string', 'Label selector for pods.', { priority: 1 });

/** The reason a pod prints as its STATUS: a waiting or terminated container's reason, else the phase. */
function podStatusText(obj: KubeObject): string {
  const status = map(obj.status);
  let reason = str(status.reason) || str(status.phase) || 'Pending';
  for (const cs of maps(status.containerStatuses)) {
    const state = map(cs.state);
    const waiting = str(map(state.waiting).reason);
    const terminated = map(state.terminated);
    if (waiting) reason = waiting;
    else if (Object.keys(terminated).length > 0) reason = str(terminated.reason) || 'Completed';
  }
  if (obj.metadata.deletionTimestamp) reason = 'Terminating';
  return reason;
}

export const podPrinter: TablePrinter = {
  columnDefinitions: [
    nameColumn,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    ageColumn,
    column('IP', 'string', 'The IP address assigned to the pod', { priority: 1 }),
    column('Node', 'string', 'The name of the node where the pod is running', { priority: 1 }),
    column('Nominated Node', 'string', 'The name of the node where the pod is nominated', { priority: 1 }),
    column('Readiness Gates', 'string', 'The readiness gates of the pod', { priority: 1 }),
  ],
  cells(obj, now) {
    const spec = map(obj.spec);
    const status = map(obj.status);
    const statuses = maps(status.containerStatuses);
    const ready = statuses.filter((s) => s.ready === true).length;
    const restarts = statuses.reduce((n, s) => n + num(s.restartCount), 0);
    const gates = maps(spec.readinessGates);
    return [
      obj.metadata.name,
      `${ready}/${maps(spec.containers).length}`,
      podStatusText(obj),
      String(restarts),
      ageCell(obj, now),
      str(status.podIP) || '<none>',
      str(spec.nodeName) || '<none>',
      str(status.nominatedNodeName) || '<none>',
      gates.length === 0 ? '<none>' : `0/${gates.length}`,
    ];
  },
};

export const deploymentPrinter: TablePrinter = {
  columnDefinitions: [
    nameColumn,
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(obj, now) {
    const spec = map(obj.spec);
    const status = map(obj.status);
    const { names, images } = containersOf(map(map(spec.template).spec));
    return [obj.metadata.name, `${num(status.readyReplicas)}/${num(spec.replicas)}`, num(status.updatedReplicas), num(status.availableReplicas), ageCell(obj, now), names, images, selectorText(spec.selector)];
  },
};

export const replicaSetPrinter: TablePrinter = {
  columnDefinitions: [
    nameColumn,
    column('Desired', 'integer', 'Number of desired pods.'),
    column('Current', 'integer', 'Number of actual replicas.'),
    column('Ready', 'integer', 'The number of ready replicas for this replica set.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(obj, now) {
    const spec = map(obj.spec);
    const status = map(obj.status);
    const { names, images } = containersOf(map(map(spec.template).spec));
    const selector = obj.kind === 'ReplicationController' ? labelMapText(spec.selector) : selectorText(spec.selector);
    return [obj.metadata.name, num(spec.replicas), num(status.replicas), num(status.readyReplicas), ageCell(obj, now), names, images, selector];
  },
};

export const statefulSetPrinter: TablePrinter = {
  columnDefinitions: [nameColumn, column('Ready', 'string', 'Number of the pod with ready state'), ageColumn, containersColumn, imagesColumn],
  cells(obj, now) {
    const spec = map(obj.spec);
    const { names, images } = containersOf(map(map(spec.template).spec));
    return [obj.metadata.name, `${num(map(obj.status).readyReplicas)}/${num(spec.replicas)}`, ageCell(obj, now), names, images];
  },
};

export const daemonSetPrinter: TablePrinter = {
  columnDefinitions: [
    nameColumn,
    column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
    column('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod.'),
    column('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
    column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    column('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.'),
    column('Node Selector', 'string', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(obj, now) {
    const spec = map(obj.spec);
    const status = map(obj.status);
    const podSpec = map(map(spec.template).spec);
    const { names, images } = containersOf(podSpec);
    return [
      obj.metadata.name,
      num(status.desiredNumberScheduled),
      num(status.currentNumberScheduled),
      num(status.numberReady),
      num(status.updatedNumberScheduled),
      num(status.numberAvailable),
      labelMapText(podSpec.nodeSelector),
      ageCell(obj, now),
      names,
      images,
      selectorText(spec.selector),
    ];
  },
};

function jobStatusText(status: JsonMap): string {
  const conditions = maps(status.conditions).filter((c) => c.status === 'True');
  for (const type of ['Failed', 'Complete', 'Suspended', 'FailureTarget', 'SuccessCriteriaMet']) {
    if (conditions.some((c) => c.type === type)) return type === 'FailureTarget' ? 'FailureTarget' : type;
  }
  return 'Running';
}

export const jobPrinter: TablePrinter = {
  columnDefinitions: [
    nameColumn,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', 'The completion status of the job.'),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(obj, now) {
    const spec = map(obj.spec);
    const status = map(obj.status);
    const { names, images } = containersOf(map(map(spec.template).spec));
    const completions = typeof spec.completions === 'number' ? `${num(status.succeeded)}/${spec.completions}` : `${num(status.succeeded)}/1 of ${num(spec.parallelism)}`;
    const start = Date.parse(str(status.startTime));
    const end = status.completionTime ? Date.parse(str(status.completionTime)) : now;
    const duration = Number.isNaN(start) ? '' : humanDuration(end - start);
    return [obj.metadata.name, jobStatusText(status), completions, duration, ageCell(obj, now), names, images, selectorText(spec.selector)];
  },
};

export const cronJobPrinter: TablePrinter = {
  columnDefinitions: [
    nameColumn,
    column('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    column('Timezone', 'string', 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.'),
    column('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.'),
    column('Active', 'integer', 'A list of pointers to currently running jobs.'),
    column('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(obj, now) {
    const spec = map(obj.spec);
    const status = map(obj.status);
    const jobSpec = map(map(spec.jobTemplate).spec);
    const { names, images } = containersOf(map(map(jobSpec.template).spec));
    const last = status.lastScheduleTime ? timestampAge(status.lastScheduleTime, now) : '<none>';
    return [obj.metadata.name, str(spec.schedule), str(spec.timeZone) || '<none>', spec.suspend === true ? 'True' : 'False', maps(status.active).length, last, ageCell(obj, now), names, images, selectorText(jobSpec.selector)];
  },
};

function servicePorts(spec: JsonMap): string {
  const ports = maps(spec.ports);
  if (ports.length === 0) return '<none>';
  return ports.map((p) => `${num(p.port)}${p.nodePort ? `:${num(p.nodePort)}` : ''}/${str(p.protocol) || 'TCP'}`).join(',');
}

function externalIp(spec: JsonMap, status: JsonMap): string {
  const type = str(spec.type);
  const external = Array.isArray(spec.externalIPs) ? (spec.externalIPs as unknown[]).map(String) : [];
  if (type === 'ExternalName') return str(spec.externalName);
  if (type === 'LoadBalancer') {
    const ingress = maps(map(status.loadBalancer).ingress).map((i) => str(i.ip) || str(i.hostname));
    const all = [...ingress, ...external];
    return all.length > 0 ? all.join(',') : '<pending>';
  }
  return external.length > 0 ? external.join(',') : '<none>';
}

export const servicePrinter: TablePrinter = {
  columnDefinitions: [
    nameColumn,
    column('Type', 'string', 'The type of the service.'),
    column('Cluster-IP', 'string', 'The cluster IP assigned to the service.'),
    column('External-IP', 'string', 'The external IP assigned to the service.'),
    column('Port(s)', 'string', 'The ports exposed by the service.'),
    ageColumn,
    column('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.', { priority: 1 }),
  ],
  cells(obj, now) {
    const spec = map(obj.spec);
    return [obj.metadata.name, str(spec.type), str(spec.clusterIP) || '<none>', externalIp(spec, map(obj.status)), servicePorts(spec), ageCell(obj, now), labelMapText(spec.selector)];
  },
};
