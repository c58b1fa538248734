/** `src/operator.ts`: the controller: an informer on the kind, `owns` on Deployments, a finalizer put on first. */
import type { ScaffoldNames } from '../scaffold-names.js';

export function operatorTs(n: ScaffoldNames): string {
  const { kind, many, kindFile, pascal } = n;
  return `/**
 * The operator: one InformerController whose primary kind is ${kind}, which owns the Deployments it creates
 * (their events ask for a reconcile of their ${kind}, in the ${kind}'s own queue), with an
 * OpinionatedReconciler that puts its finalizer on a ${kind} before any of our code runs for it
 * (\`finalizerFirst\`), so that nothing done outside Kubernetes can outlive its ${kind}, even across a crash.
 */
import { Client, DeploymentKind, EventKind } from '@kubeloop/resource';
import type { Transport } from '@kubeloop/resource';
import { ClientEventRecorder, InformerController, KubernetesBasedInformer, OpinionatedReconciler, Operator } from '@kubeloop/operator';
import type { Backoff, Logger, RetryPolicy } from '@kubeloop/operator';
import { ${kind}Kind } from './kinds/${kindFile}.js';
import { FIELD_MANAGER, ${kind}Reconciler } from './${kindFile}-reconciler.js';
import type { ${kind}ReconcilerParts } from './${kindFile}-reconciler.js';

/** The finalizer that holds a deleted ${kind} until \`cleanUp\` has run. */
export const FINALIZER = '${n.finalizer}';

export interface ${pascal}Options {
  /** In \`main\`: the cluster's; in tests: the test environment's. */
  transport: Transport;
  /** Namespace to watch; '' for all. Default: ''. */
  namespace?: string | undefined;
  /** Default: the controller's (5 s doubling); tests pass a faster one. */
  retryPolicy?: RetryPolicy | undefined;
  /** Default: 0.8 s doubling to 30 s; tests pass a faster one. */
  informerBackoff?: Backoff | undefined;
  /** Default: the console. */
  logger?: Logger | undefined;
  /** See {@link ${kind}ReconcilerParts.cleanUp}. Default: nothing to undo. */
  cleanUp?: ${kind}ReconcilerParts['cleanUp'];
}

export function create${pascal}(options: ${pascal}Options): Operator {
  const { transport, logger } = options;
  const namespace = options.namespace ?? '';
  const ${many} = new Client(${kind}Kind, transport);
  const deployments = new Client(DeploymentKind, transport);
  const events = new ClientEventRecorder(new Client(EventKind, transport), { component: FIELD_MANAGER, logger });
  const informerOptions = { backoff: options.informerBackoff, logger };

  const controller = new InformerController({ retryPolicy: options.retryPolicy, logger });
  controller.addInformer(new KubernetesBasedInformer(${kind}Kind, ${many}, namespace, informerOptions), ${kind}Kind);
  // Only the Deployments this operator made: its label, and an owner reference to their ${kind}.
  const owned = { ...informerOptions, labelSelector: \`app.kubernetes.io/managed-by=\${FIELD_MANAGER}\` };
  controller.owns(new KubernetesBasedInformer(DeploymentKind, deployments, namespace, owned), { primary: ${kind}Kind });

  const reconciler = new OpinionatedReconciler(${many}, FINALIZER, { finalizerFirst: true });
  reconciler.wrap(new ${kind}Reconciler({ ${many}, deployments, events, cleanUp: options.cleanUp }));
  controller.addReconciler(reconciler, ${kind}Kind);

  const operator = new Operator();
  operator.addController(controller);
  return operator;
}
`;
}
