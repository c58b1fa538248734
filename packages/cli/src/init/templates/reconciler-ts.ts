/** `src/<kind>-reconciler.ts`: one reconcile of the kind: the owned Deployment, the Ready condition, the cleanup. */
import type { ScaffoldNames } from '../scaffold-names.js';

export function reconcilerTs(n: ScaffoldNames): string {
  const { kind, one, many, kindFile } = n;
  return `/**
 * What the operator does for one ${kind}: apply the Deployment it owns (server-side apply: re-applying what
 * is already there changes nothing and wakes nobody), and report \`Ready\` once the Deployment has its replicas
 * ready. On deletion (through the finalizer) it undoes what it did outside Kubernetes (\`cleanUp\`); the
 * Deployment goes with the ${kind} (garbage collection, through its owner reference).
 */
import { DeploymentKind, findCondition, identifierOf, ownerReferenceFor, setCondition } from '@kubeloop/resource';
import type { Client, Deployment } from '@kubeloop/resource';
import { ReconcileAction } from '@kubeloop/operator';
import type { EventRecorder, HandlerContext, ReconcileRequest, ReconcileResult, Reconciler } from '@kubeloop/operator';
import type { ${kind} } from './kinds/${kindFile}.js';

/** The name the operator writes its fields as, and the label on what it owns. */
export const FIELD_MANAGER = '${n.name}';

/** The clients a reconciler works with, and the hooks of a test. */
export interface ${kind}ReconcilerParts {
  ${many}: Client<${kind}>;
  deployments: Client<Deployment>;
  events: EventRecorder;
  /**
   * Undoes what the operator did outside Kubernetes for a deleted ${kind} (a DNS record, a bucket...); the
   * finalizer stays until it resolves, and it is retried when it throws. Default: nothing to undo.
   */
  cleanUp?: ((${one}: ${kind}) => Promise<void>) | undefined;
}

export class ${kind}Reconciler implements Reconciler<${kind}> {
  constructor(private readonly parts: ${kind}ReconcilerParts) {}

  async reconcile(_ctx: HandlerContext, { action, object: ${one} }: ReconcileRequest<${kind}>): Promise<ReconcileResult> {
    if (action === ReconcileAction.Deleted) {
      await this.parts.cleanUp?.(${one});
      return {};
    }
    const spec = ${one}.spec;
    if (spec === undefined) return {};
    const { name, namespace = 'default' } = ${one}.metadata;
    const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/managed-by': FIELD_MANAGER };
    const deployment: Deployment = {
      apiVersion: DeploymentKind.apiVersion,
      kind: DeploymentKind.kind,
      metadata: { name, namespace, labels, ownerReferences: [ownerReferenceFor(${one}, { controller: true, blockOwnerDeletion: true })] },
      spec: {
        replicas: spec.replicas,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'main', image: spec.image }] } },
      },
    };
    const applied = await this.parts.deployments.patch(identifierOf(deployment), { apply: deployment, fieldManager: FIELD_MANAGER, force: true });

    const readyReplicas = applied.status?.readyReplicas ?? 0;
    const ready = readyReplicas >= spec.replicas;
    const status = structuredClone(${one}.status ?? {});
    const changed = setCondition(status, {
      type: 'Ready',
      status: ready ? 'True' : 'False',
      reason: ready ? 'ReplicasReady' : 'WaitingForReplicas',
      message: \`\${readyReplicas} of \${spec.replicas} replicas ready\`,
      observedGeneration: ${one}.metadata.generation,
    });
    if (changed || status.readyReplicas !== readyReplicas) {
      await this.parts.${many}.patchStatus(identifierOf(${one}), { readyReplicas, conditions: status.conditions });
      if (ready && findCondition(${one}.status?.conditions, 'Ready')?.status !== 'True') {
        this.parts.events.recordEvent(${one}, 'Normal', 'Ready', \`\${readyReplicas} of \${spec.replicas} replicas ready\`);
      }
    }
    return {};
  }
}

/** True when the ${kind} reports Ready for its current generation. */
export function isReady(${one}: ${kind}): boolean {
  const ready = findCondition(${one}.status?.conditions, 'Ready');
  return ready?.status === 'True' && ready.observedGeneration === ${one}.metadata.generation;
}
`;
}
