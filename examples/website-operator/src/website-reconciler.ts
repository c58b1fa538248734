/**
 * What the operator does for one Website: publish its DNS record, apply the Deployment and the Service it
 * owns (server-side apply: re-applying what is already there changes nothing and wakes nobody), and report
 * `Ready` once the Deployment's rollout is complete, or `Degraded` with the reason when a Pod says why it will
 * not get there (an image that cannot be pulled, a crash loop) or the rollout stalled. On deletion (through the finalizer) it withdraws the
 * DNS record; the Deployment and the Service go with the Website (garbage collection).
 */
import { DeploymentKind, ServiceKind, findCondition, identifierOf, ownerReferenceFor, setCondition } from '@kubeloop/resource';
import type { Client, Deployment, Pod, Service } from '@kubeloop/resource';
import { ReconcileAction } from '@kubeloop/operator';
import type { HandlerContext, ReconcileRequest, ReconcileResult, Reconciler } from '@kubeloop/operator';
import type { DnsRecords } from './dns-records.js';
import type { Website } from './website.js';
import { podFailure, rolloutState } from './workload-health.js';

/** The name the operator writes its fields as. */
export const FIELD_MANAGER = 'website-operator';

/** The clients and the external system a reconciler works with. */
export interface WebsiteReconcilerParts {
  websites: Client<Website>;
  deployments: Client<Deployment>;
  services: Client<Service>;
  /** Read when the Deployment is not rolled out, to say why. */
  pods: Client<Pod>;
  records: DnsRecords;
  /** Called after each reconcile of a Website, for a status line or a test. Default: nothing. */
  onReconciled?: ((website: Website, action: ReconcileAction) => void) | undefined;
}

export class WebsiteReconciler implements Reconciler<Website> {
  constructor(private readonly parts: WebsiteReconcilerParts) {}

  async reconcile(_ctx: HandlerContext, { action, object: website }: ReconcileRequest<Website>): Promise<ReconcileResult> {
    const { records, deployments, services, websites, pods } = this.parts;
    const spec = website.spec;
    if (action === ReconcileAction.Deleted) {
      if (spec !== undefined) await records.remove(spec.hostname, website.metadata.uid ?? '');
      this.parts.onReconciled?.(website, action);
      return {};
    }
    if (spec === undefined) return {};
    const { name, namespace = 'default' } = website.metadata;
    const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/managed-by': FIELD_MANAGER };
    const metadata = { name, namespace, labels, ownerReferences: [ownerReferenceFor(website, { controller: true, blockOwnerDeletion: true })] };

    await records.upsert({ hostname: spec.hostname, target: `${name}.${namespace}.svc`, owner: website.metadata.uid ?? '' });
    const deployment: Deployment = {
      apiVersion: DeploymentKind.apiVersion,
      kind: DeploymentKind.kind,
      metadata,
      spec: {
        replicas: spec.replicas,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: spec.image, ports: [{ name: 'http', containerPort: 8080 }] }] } },
      },
    };
    const applied = await deployments.patch(identifierOf(deployment), { apply: deployment, fieldManager: FIELD_MANAGER, force: true });
    const service: Service = {
      apiVersion: ServiceKind.apiVersion,
      kind: ServiceKind.kind,
      metadata,
      spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    };
    await services.patch(identifierOf(service), { apply: service, fieldManager: FIELD_MANAGER, force: true });

    const rollout = rolloutState(applied);
    const failure = rollout.complete ? undefined : podFailure((await pods.list(namespace, { labelSelector: `app.kubernetes.io/name=${name}` })).items);
    const status = structuredClone(website.status ?? {});
    const observedGeneration = website.metadata.generation;
    let changed = setCondition(status, {
      type: 'Ready',
      status: rollout.complete ? 'True' : 'False',
      reason: rollout.complete ? 'RolloutComplete' : 'WaitingForRollout',
      message: rollout.summary,
      observedGeneration,
    });
    const degraded = failure ?? (rollout.stalled ? { reason: 'ProgressDeadlineExceeded', message: `the rollout stalled: ${rollout.summary}` } : undefined);
    changed =
      setCondition(status, {
        type: 'Degraded',
        status: degraded ? 'True' : 'False',
        reason: degraded?.reason ?? 'AsExpected',
        message: degraded?.message ?? 'no Pod reports a failure',
        observedGeneration,
      }) || changed;
    if (changed) await websites.patchStatus(identifierOf(website), { conditions: status.conditions });
    this.parts.onReconciled?.(website, action);
    return {};
  }
}

/** True when the Website reports Ready for its current generation. */
export function isReady(website: Website): boolean {
  const ready = findCondition(website.status?.conditions, 'Ready');
  return ready?.status === 'True' && ready.observedGeneration === website.metadata.generation;
}
