/**
 * The Website operator: one InformerController whose primary kind is Website, which owns the Deployments
 * and Services it creates (their events ask for a reconcile of their Website, in the Website's own queue),
 * watches the Pods of those Deployments (mapped back by label), with an OpinionatedReconciler that puts its finalizer on a Website before any of our code runs for it
 * (`finalizerFirst`), so that no DNS record can outlive its Website, even across a crash.
 */
import { Client, DeploymentKind, PodKind, ServiceKind } from '@kubeloop/resource';
import type { Transport } from '@kubeloop/resource';
import { InformerController, KubernetesBasedInformer, OpinionatedReconciler, Operator } from '@kubeloop/operator';
import type { Backoff, Logger, RetryPolicy } from '@kubeloop/operator';
import { DnsRecords } from './dns-records.js';
import { WebsiteKind } from './website.js';
import type { Website } from './website.js';
import { FIELD_MANAGER, WebsiteReconciler } from './website-reconciler.js';
import type { WebsiteReconcilerParts } from './website-reconciler.js';

/** The finalizer that guards a Website's DNS record. */
export const WEBSITE_FINALIZER = 'web.kubeloop.dev/dns-record';

export interface WebsiteOperatorOptions {
  /** In `main`: the cluster's; in tests: the test environment's. */
  transport: Transport;
  /** Where the DNS records are kept. */
  recordsDir: string;
  /** Namespace to watch; '' for all. Default: ''. */
  namespace?: string | undefined;
  /** Default: the controller's (5 s doubling); tests pass a faster one. */
  retryPolicy?: RetryPolicy | undefined;
  /** Default: 0.8 s doubling to 30 s; tests pass a faster one. */
  informerBackoff?: Backoff | undefined;
  /** Default: the console. */
  logger?: Logger | undefined;
  /** See {@link WebsiteReconcilerParts.onReconciled}. */
  onReconciled?: WebsiteReconcilerParts['onReconciled'];
}

export function createWebsiteOperator(options: WebsiteOperatorOptions): Operator {
  const { transport, logger } = options;
  const namespace = options.namespace ?? '';
  const websites: Client<Website> = new Client(WebsiteKind, transport);
  const deployments = new Client(DeploymentKind, transport);
  const services = new Client(ServiceKind, transport);
  const pods = new Client(PodKind, transport);
  const informerOptions = { backoff: options.informerBackoff, logger };
  const ours = { ...informerOptions, labelSelector: `app.kubernetes.io/managed-by=${FIELD_MANAGER}` };

  const controller = new InformerController({ retryPolicy: options.retryPolicy, logger });
  controller.addInformer(new KubernetesBasedInformer(WebsiteKind, websites, namespace, informerOptions), WebsiteKind);
  controller.owns(new KubernetesBasedInformer(DeploymentKind, deployments, namespace, ours), { primary: WebsiteKind });
  controller.owns(new KubernetesBasedInformer(ServiceKind, services, namespace, ours), { primary: WebsiteKind });
  // A Pod is the Deployment's ReplicaSet's, not the Website's: it is mapped back by its label, so that a Pod
  // starting to fail (an image that cannot be pulled) reconciles its Website even when the Deployment does not change.
  controller.watches(new KubernetesBasedInformer(PodKind, pods, namespace, ours), {
    primary: WebsiteKind,
    map: (pod) => {
      const name = pod.metadata.labels?.['app.kubernetes.io/name'];
      return name === undefined ? [] : [{ namespace: pod.metadata.namespace ?? '', name }];
    },
  });

  const reconciler = new OpinionatedReconciler(websites, WEBSITE_FINALIZER, { finalizerFirst: true });
  reconciler.wrap(new WebsiteReconciler({ websites, deployments, services, pods, records: new DnsRecords(options.recordsDir), onReconciled: options.onReconciled }));
  controller.addReconciler(reconciler, WebsiteKind);

  const operator = new Operator();
  operator.addController(controller);
  return operator;
}
