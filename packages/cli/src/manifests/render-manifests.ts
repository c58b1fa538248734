/**
 * The manifests that deploy an operator project: its CRDs, a Namespace, a ServiceAccount, RBAC for
 * exactly what it uses, and its Deployment (leader election on, probes on the operator's health
 * endpoints, a restricted security context, a writable /tmp), as one multi-document YAML. With more than one
 * replica the Lease Role also grants delete, which a sharded operator's replicas need (see rbac-rules.ts).
 */
import { stringify } from 'yaml';
import type { CustomResourceDefinition } from '@kubeloop/resource';
import type { DeployConfig, ResourceRef } from '../project/project-config.js';
import { clusterRules, leaseRules } from './rbac-rules.js';

/** What the manifests are made from. */
export interface ManifestInputs {
  readonly crds: readonly CustomResourceDefinition[];
  readonly deploy: DeployConfig;
  readonly owns: readonly ResourceRef[];
  readonly reads: readonly ResourceRef[];
}

/** The port of the operator's /metrics, /healthz and /readyz (OperatorServer's default). */
export const METRICS_PORT = 9090;

/** Every object, in the order `kubectl apply` needs them (CRDs and the Namespace first). */
export function manifestObjects({ crds, deploy, owns, reads }: ManifestInputs): object[] {
  const { name, namespace, image, replicas } = deploy;
  const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/managed-by': 'kubeloop' };
  const meta = (objectName: string, inNamespace: boolean): object => ({ name: objectName, ...(inNamespace ? { namespace } : {}), labels });
  const subject = [{ kind: 'ServiceAccount', name, namespace }];
  // The Lease Role keeps this name at every replica count, so that scaling re-applies one Role, never leaves an old one.
  const leaderElection = `${name}-leader-election`;
  return [
    ...crds.map((crd) => ({ apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: crd.metadata.name, ...(crd.metadata.labels ? { labels: crd.metadata.labels } : {}) }, spec: crd.spec })),
    { apiVersion: 'v1', kind: 'Namespace', metadata: meta(namespace, false) },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(name, true) },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta(name, false), rules: clusterRules(crds, owns, reads) },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: meta(name, false), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: subject },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(leaderElection, true), rules: leaseRules(replicas) },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta(leaderElection, true), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: leaderElection }, subjects: subject },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(name, true),
      spec: {
        replicas,
        selector: { matchLabels: { 'app.kubernetes.io/name': name } },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: name,
            // Above the operator's 40 s shutdown deadline, so a rolling update never kills a reconcile.
            terminationGracePeriodSeconds: 45,
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'operator',
                image,
                env: [
                  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                  { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                ],
                ports: [{ name: 'metrics', containerPort: METRICS_PORT }],
                livenessProbe: { httpGet: { path: '/healthz', port: 'metrics' }, periodSeconds: 10 },
                readinessProbe: { httpGet: { path: '/readyz', port: 'metrics' }, periodSeconds: 5 },
                resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '256Mi' } },
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
                // The root filesystem is read-only; /tmp (os.tmpdir()) is where a Node program may still write.
                volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
              },
            ],
            volumes: [{ name: 'tmp', emptyDir: {} }],
          },
        },
      },
    },
  ];
}

/** The objects as one YAML stream, with a header saying where it came from. */
export function renderManifests(inputs: ManifestInputs, header: string): string {
  const documents = manifestObjects(inputs).map((object) => stringify(object, { lineWidth: 0 }).trimEnd());
  return `# ${header}\n${documents.map((d) => `---\n${d}`).join('\n')}\n`;
}
