/**
 * What some built-in kinds do besides storing their fields: defaults, validation, how their Scale
 * reads the selector, and their printers. Kinds without rules are stored as decoded (no
 * controllers run: nothing schedules pods or creates ReplicaSets, as with envtest).
 */
import type { KubeObject } from '@kubeloop/resource';
import type { FieldProblem } from '../http/status-error.js';
import type { TablePrinter } from '../table/table-printer.js';
import { podRules } from './pod-rules.js';
import { serviceRules } from './service-rules.js';
import { cronJobRules, daemonSetRules, deploymentRules, jobRules, replicaSetRules, replicationControllerRules, statefulSetRules } from './workload-rules.js';
import { simplePrinters } from './simple-printers.js';

/** The rules of one built-in kind. */
export interface KindRules {
  /** Applies defaults in place, on create (`old` undefined) and on update of the main resource. */
  readonly defaults?: (obj: KubeObject, old: KubeObject | undefined) => void;
  /** Kind-specific problems, after defaulting. */
  readonly validate?: (obj: KubeObject, old: KubeObject | undefined) => FieldProblem[];
  /** The label selector text a Scale reports in `status.selector`. */
  readonly scaleSelector?: (obj: KubeObject) => string;
  /** How `kubectl get` prints the kind; default NAME and AGE. */
  readonly printer?: TablePrinter;
}

const rulesByKind: ReadonlyMap<string, KindRules> = new Map<string, KindRules>([
  ['/Pod', podRules],
  ['/Service', serviceRules],
  ['/ReplicationController', replicationControllerRules],
  ['apps/Deployment', deploymentRules],
  ['apps/ReplicaSet', replicaSetRules],
  ['apps/StatefulSet', statefulSetRules],
  ['apps/DaemonSet', daemonSetRules],
  ['batch/Job', jobRules],
  ['batch/CronJob', cronJobRules],
]);

/** The rules of `group/kind` (an empty set when it has none), with its printer. */
export function kindRulesOf(group: string, kind: string): KindRules {
  const key = `${group}/${kind}`;
  const rules = rulesByKind.get(key) ?? {};
  const printer = rules.printer ?? simplePrinters.get(key);
  return printer ? { ...rules, printer } : rules;
}
