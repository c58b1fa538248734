/**
 * One replica of a leader-elected operator, as users deploy it: `runOperator` with leader election on
 * a Lease and no OperatorServer, stopped by SIGTERM, exit code from runOperator. It reconciles the
 * ConfigMaps labelled `app=replicas` in `default`, each call taking `workDelayMs`, and appends one JSON
 * line per call start and end to the record file (pid, key, resourceVersion, Date.now()): the test
 * checks from it that no two replicas ever handle one object at the same time.
 * `node replica-main.js '<ReplicaOptions as JSON>'`, kubeconfig from KUBECONFIG.
 */
import { appendFileSync } from 'node:fs';
import { ConfigMapKind, LeaseKind, createClient, loadKubeConfig } from '@kubeloop/resource';
import { InformerController, KubernetesBasedInformer, Operator, SimpleReconciler, runOperator } from '@kubeloop/operator';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReplicaCall, ReplicaOptions } from './replica-record.js';

const options = JSON.parse(process.argv[2] ?? '{}') as ReplicaOptions;
const kubeConfig = loadKubeConfig();
const record = (call: Omit<ReplicaCall, 'pid' | 'at'>): void => {
  // Synchronous: a line written is on disk even if the process is killed right after.
  appendFileSync(options.record, `${JSON.stringify({ ...call, pid: process.pid, at: Date.now() } satisfies ReplicaCall)}\n`);
};

const controller = new InformerController();
controller.addInformer(new KubernetesBasedInformer(ConfigMapKind, createClient(ConfigMapKind, kubeConfig), 'default', { labelSelector: 'app=replicas' }), 'configmaps');
controller.addReconciler(
  new SimpleReconciler({
    reconcileFunc: async (_ctx, { object }) => {
      const call = { key: object.metadata.name, resourceVersion: object.metadata.resourceVersion ?? '' };
      record({ ...call, phase: 'start' });
      await sleep(options.workDelayMs);
      record({ ...call, phase: 'end' });
      return {};
    },
  }),
  'configmaps',
);
const operator = new Operator();
operator.addController(controller);

const { exitCode } = await runOperator({
  operator,
  leaderElection: {
    client: createClient(LeaseKind, kubeConfig),
    lease: { namespace: 'default', name: options.lease },
    identity: options.identity,
    leaseDurationMs: options.leaseDurationMs,
    renewDeadlineMs: options.renewDeadlineMs,
    retryPeriodMs: options.retryPeriodMs,
  },
});
console.log(`runOperator resolved with exit code ${exitCode}`);
process.exitCode = exitCode;
