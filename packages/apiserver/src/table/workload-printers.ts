/**
 * Table printers of pods, services and workloads, with kube-apiserver's columns (`kubectl get`
 * and `-o wide`), each declared as its columns. Cells come from the stored status; nothing updates
 * it here (no controllers), so a Deployment shows `0/1` READY until a test writes its status.
 */
import type { KubeObject } from '@kubeloop/resource';
import { count, labelMapText, record, records, selectorText, text } from './cell-values.js';
import type { JsonMap } from './cell-values.js';
import { humanDuration, timestampAge } from './human-duration.js';
import { ageCellColumn, declaredPrinter, nameCellColumn } from './table-printer.js';
import type { DeclaredColumn, PrinterRow, TablePrinter } from './table-printer.js';

/** The pod spec of a workload's `spec.template`. */
function templatePodSpec(row: PrinterRow): JsonMap {
  return record(record(row.spec.template).spec);
}

/** The `-o wide` CONTAINERS and IMAGES columns of a workload whose pod spec `podSpecOf` reads. */
function templateColumns(podSpecOf: (row: PrinterRow) => JsonMap): DeclaredColumn[] {
  const containers = (row: PrinterRow): JsonMap[] => records(podSpecOf(row).containers);
  return [
    { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority: 1, cell: (row) => containers(row).map((c) => text(c.name)).join(',') },
    { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority: 1, cell: (row) => containers(row).map((c) => text(c.image)).join(',') },
  ];
}

/** The `-o wide` SELECTOR column of a workload, `spec.selector` unless `selectorOf` says otherwise. */
function selectorColumn(selectorOf: (row: PrinterRow) => string = (row) => selectorText(row.spec.selector)): DeclaredColumn {
  return { name: 'Selector', type: 'string', description: 'Label selector for pods.', priority: 1, cell: selectorOf };
}

/** `ready/desired` of a workload. */
function readyOfReplicas(row: PrinterRow): string {
  return `${count(row.status.readyReplicas)}/${count(row.spec.replicas)}`;
}

/** The reason a pod prints as its STATUS: a waiting or terminated container's reason, else the phase. */
function podStatusText(obj: KubeObject): string {
  const status = record(obj.status);
  let reason = text(status.reason) || text(status.phase) || 'Pending';
  for (const cs of records(status.containerStatuses)) {
    const state = record(cs.state);
    const waiting = text(record(state.waiting).reason);
    const terminated = record(state.terminated);
    if (waiting) reason = waiting;
    else if (Object.keys(terminated).length > 0) reason = text(terminated.reason) || 'Completed';
  }
  if (obj.metadata.deletionTimestamp) reason = 'Terminating';
  return reason;
}

export const podPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  {
    name: 'Ready',
    type: 'string',
    description: 'The aggregate readiness state of this pod for accepting traffic.',
    cell: ({ spec, status }) => `${records(status.containerStatuses).filter((s) => s.ready === true).length}/${records(spec.containers).length}`,
  },
  { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', cell: (row) => podStatusText(row.object) },
  {
    name: 'Restarts',
    type: 'string',
    description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    cell: ({ status }) => String(records(status.containerStatuses).reduce((n, s) => n + count(s.restartCount), 0)),
  },
  ageCellColumn,
  { name: 'IP', type: 'string', description: 'The IP address assigned to the pod', priority: 1, cell: ({ status }) => text(status.podIP) || '<none>' },
  { name: 'Node', type: 'string', description: 'The name of the node where the pod is running', priority: 1, cell: ({ spec }) => text(spec.nodeName) || '<none>' },
  { name: 'Nominated Node', type: 'string', description: 'The name of the node where the pod is nominated', priority: 1, cell: ({ status }) => text(status.nominatedNodeName) || '<none>' },
  {
    name: 'Readiness Gates',
    type: 'string',
    description: 'The readiness gates of the pod',
    priority: 1,
    cell: ({ spec }) => {
      const gates = records(spec.readinessGates);
      return gates.length === 0 ? '<none>' : `0/${gates.length}`;
    },
  },
]);

export const deploymentPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', cell: readyOfReplicas },
  {
    name: 'Up-to-date',
    type: 'string',
    description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    cell: ({ status }) => count(status.updatedReplicas),
  },
  {
    name: 'Available',
    type: 'string',
    description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    cell: ({ status }) => count(status.availableReplicas),
  },
  ageCellColumn,
  ...templateColumns(templatePodSpec),
  selectorColumn(),
]);

export const replicaSetPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'Desired', type: 'integer', description: 'Number of desired pods.', cell: ({ spec }) => count(spec.replicas) },
  { name: 'Current', type: 'integer', description: 'Number of actual replicas.', cell: ({ status }) => count(status.replicas) },
  { name: 'Ready', type: 'integer', description: 'The number of ready replicas for this replica set.', cell: ({ status }) => count(status.readyReplicas) },
  ageCellColumn,
  ...templateColumns(templatePodSpec),
  // A ReplicationController's selector is a plain label map.
  selectorColumn(({ object, spec }) => (object.kind === 'ReplicationController' ? labelMapText(spec.selector) : selectorText(spec.selector))),
]);

export const statefulSetPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', cell: readyOfReplicas },
  ageCellColumn,
  ...templateColumns(templatePodSpec),
]);

export const daemonSetPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'Desired', type: 'integer', description: 'The total number of nodes that should be running the daemon pod.', cell: ({ status }) => count(status.desiredNumberScheduled) },
  { name: 'Current', type: 'integer', description: 'The number of nodes that are running at least 1 daemon pod.', cell: ({ status }) => count(status.currentNumberScheduled) },
  {
    name: 'Ready',
    type: 'integer',
    description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
    cell: ({ status }) => count(status.numberReady),
  },
  { name: 'Up-to-date', type: 'integer', description: 'The total number of nodes that are running updated daemon pod', cell: ({ status }) => count(status.updatedNumberScheduled) },
  {
    name: 'Available',
    type: 'integer',
    description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
    cell: ({ status }) => count(status.numberAvailable),
  },
  {
    name: 'Node Selector',
    type: 'string',
    description: 'NodeSelector is a selector which must be true for the pod to fit on a node.',
    cell: (row) => labelMapText(templatePodSpec(row).nodeSelector),
  },
  ageCellColumn,
  ...templateColumns(templatePodSpec),
  selectorColumn(),
]);

function jobStatusText(status: JsonMap): string {
  const conditions = records(status.conditions).filter((c) => c.status === 'True');
  for (const type of ['Failed', 'Complete', 'Suspended', 'FailureTarget', 'SuccessCriteriaMet']) {
    if (conditions.some((c) => c.type === type)) return type;
  }
  return 'Running';
}

function jobCompletions({ spec, status }: PrinterRow): string {
  return typeof spec.completions === 'number' ? `${count(status.succeeded)}/${spec.completions}` : `${count(status.succeeded)}/1 of ${count(spec.parallelism)}`;
}

function jobDuration({ status, now }: PrinterRow): string {
  const start = Date.parse(text(status.startTime));
  const end = status.completionTime ? Date.parse(text(status.completionTime)) : now;
  return Number.isNaN(start) ? '' : humanDuration(end - start);
}

export const jobPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'Status', type: 'string', description: 'Status of the job.', cell: ({ status }) => jobStatusText(status) },
  { name: 'Completions', type: 'string', description: 'The completion status of the job.', cell: jobCompletions },
  { name: 'Duration', type: 'string', description: 'Time required to complete the job.', cell: jobDuration },
  ageCellColumn,
  ...templateColumns(templatePodSpec),
  selectorColumn(),
]);

/** The job spec of a CronJob's `spec.jobTemplate`. */
function jobTemplateSpec(row: PrinterRow): JsonMap {
  return record(record(row.spec.jobTemplate).spec);
}

export const cronJobPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'Schedule', type: 'string', description: 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.', cell: ({ spec }) => text(spec.schedule) },
  {
    name: 'Timezone',
    type: 'string',
    description: 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.',
    cell: ({ spec }) => text(spec.timeZone) || '<none>',
  },
  {
    name: 'Suspend',
    type: 'boolean',
    description: 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.',
    cell: ({ spec }) => (spec.suspend === true ? 'True' : 'False'),
  },
  { name: 'Active', type: 'integer', description: 'A list of pointers to currently running jobs.', cell: ({ status }) => records(status.active).length },
  {
    name: 'Last Schedule',
    type: 'string',
    description: 'Information when was the last time the job was successfully scheduled.',
    cell: ({ status, now }) => (status.lastScheduleTime ? timestampAge(status.lastScheduleTime, now) : '<none>'),
  },
  ageCellColumn,
  ...templateColumns((row) => record(record(jobTemplateSpec(row).template).spec)),
  selectorColumn((row) => selectorText(jobTemplateSpec(row).selector)),
]);

function servicePorts(spec: JsonMap): string {
  const ports = records(spec.ports);
  if (ports.length === 0) return '<none>';
  return ports.map((p) => `${count(p.port)}${p.nodePort ? `:${count(p.nodePort)}` : ''}/${text(p.protocol) || 'TCP'}`).join(',');
}

function externalIp(spec: JsonMap, status: JsonMap): string {
  const type = text(spec.type);
  const external = Array.isArray(spec.externalIPs) ? (spec.externalIPs as unknown[]).map(String) : [];
  if (type === 'ExternalName') return text(spec.externalName);
  if (type === 'LoadBalancer') {
    const ingress = records(record(status.loadBalancer).ingress).map((i) => text(i.ip) || text(i.hostname));
    const all = [...ingress, ...external];
    return all.length > 0 ? all.join(',') : '<pending>';
  }
  return external.length > 0 ? external.join(',') : '<none>';
}

export const servicePrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'Type', type: 'string', description: 'The type of the service.', cell: ({ spec }) => text(spec.type) },
  { name: 'Cluster-IP', type: 'string', description: 'The cluster IP assigned to the service.', cell: ({ spec }) => text(spec.clusterIP) || '<none>' },
  { name: 'External-IP', type: 'string', description: 'The external IP assigned to the service.', cell: ({ spec, status }) => externalIp(spec, status) },
  { name: 'Port(s)', type: 'string', description: 'The ports exposed by the service.', cell: ({ spec }) => servicePorts(spec) },
  ageCellColumn,
  {
    name: 'Selector',
    type: 'string',
    description: 'Route service traffic to pods with label keys and values matching this selector.',
    priority: 1,
    cell: ({ spec }) => labelMapText(spec.selector),
  },
]);
