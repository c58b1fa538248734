/**
 * The built-in kinds served from data: one row per kind, with its names, scope, subresources and
 * the API type (`model`) whose generated definition (`kubernetes-models.generated.ts`) gives its
 * fields. Namespaces, ConfigMaps, Secrets, core Events and Leases have hand-written types in
 * `builtin-resources.ts` (their error texts are pinned by tests); CRDs are in `crd-resource.ts`.
 * Discovery names, short names and categories are kube-apiserver's.
 */

/** One served built-in kind. */
export interface BuiltinKind {
  /** API group; '' for core. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** The client-node model name of the kind's API type (the generator starts from these). */
  readonly model: string;
  readonly shortNames?: readonly string[];
  /** `all` puts the kind in `kubectl get all`. */
  readonly categories?: readonly string[];
  /** Has a `/status` subresource. */
  readonly status?: boolean;
  /** Has a `/scale` subresource (`spec.replicas`, `status.replicas`, the selector). */
  readonly scale?: boolean;
  /** `metadata.generation` is maintained. */
  readonly generation?: boolean;
  /** Field selector labels besides `metadata.name` and `metadata.namespace`. */
  readonly selectableFields?: readonly string[];
  /**
   * False when the kind's protobuf messages are not in k8s.io/api (APIService's are kube-aggregator's):
   * bodies are JSON or YAML, a protobuf body is 400 saying so. Default: true.
   */
  readonly protobuf?: boolean;
}

export const builtinKinds: readonly BuiltinKind[] = [
  // core/v1
  { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true, model: 'V1Pod', shortNames: ['po'], categories: ['all'], status: true, selectableFields: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'] },
  { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true, model: 'V1Service', shortNames: ['svc'], categories: ['all'], status: true, selectableFields: ['spec.clusterIP', 'spec.type'] },
  { group: '', version: 'v1', kind: 'Endpoints', plural: 'endpoints', namespaced: true, model: 'V1Endpoints', shortNames: ['ep'] },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true, model: 'V1ServiceAccount', shortNames: ['sa'] },
  { group: '', version: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', namespaced: true, model: 'V1PersistentVolumeClaim', shortNames: ['pvc'], status: true },
  { group: '', version: 'v1', kind: 'PersistentVolume', plural: 'persistentvolumes', namespaced: false, model: 'V1PersistentVolume', shortNames: ['pv'], status: true },
  { group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false, model: 'V1Node', shortNames: ['no'], status: true, selectableFields: ['spec.unschedulable'] },
  { group: '', version: 'v1', kind: 'LimitRange', plural: 'limitranges', namespaced: true, model: 'V1LimitRange', shortNames: ['limits'] },
  { group: '', version: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas', namespaced: true, model: 'V1ResourceQuota', shortNames: ['quota'], status: true },
  { group: '', version: 'v1', kind: 'ReplicationController', plural: 'replicationcontrollers', namespaced: true, model: 'V1ReplicationController', shortNames: ['rc'], categories: ['all'], status: true, scale: true, generation: true, selectableFields: ['status.replicas'] },
  { group: '', version: 'v1', kind: 'PodTemplate', plural: 'podtemplates', namespaced: true, model: 'V1PodTemplate' },
  // apps/v1
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true, model: 'V1Deployment', shortNames: ['deploy'], categories: ['all'], status: true, scale: true, generation: true },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', namespaced: true, model: 'V1ReplicaSet', shortNames: ['rs'], categories: ['all'], status: true, scale: true, generation: true, selectableFields: ['status.replicas'] },
  { group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets', namespaced: true, model: 'V1StatefulSet', shortNames: ['sts'], categories: ['all'], status: true, scale: true, generation: true },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets', namespaced: true, model: 'V1DaemonSet', shortNames: ['ds'], categories: ['all'], status: true, generation: true },
  { group: 'apps', version: 'v1', kind: 'ControllerRevision', plural: 'controllerrevisions', namespaced: true, model: 'V1ControllerRevision' },
  // batch/v1
  { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true, model: 'V1Job', categories: ['all'], status: true, generation: true, selectableFields: ['status.successful'] },
  { group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', namespaced: true, model: 'V1CronJob', shortNames: ['cj'], categories: ['all'], status: true, generation: true },
  // autoscaling/v2
  { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', namespaced: true, model: 'V2HorizontalPodAutoscaler', shortNames: ['hpa'], categories: ['all'], status: true, generation: true },
  // policy/v1
  { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', namespaced: true, model: 'V1PodDisruptionBudget', shortNames: ['pdb'], status: true, generation: true },
  // rbac.authorization.k8s.io/v1
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', namespaced: true, model: 'V1Role' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true, model: 'V1RoleBinding' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false, model: 'V1ClusterRole' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false, model: 'V1ClusterRoleBinding' },
  // networking.k8s.io/v1
  { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', plural: 'ingresses', namespaced: true, model: 'V1Ingress', shortNames: ['ing'], status: true, generation: true },
  { group: 'networking.k8s.io', version: 'v1', kind: 'IngressClass', plural: 'ingressclasses', namespaced: false, model: 'V1IngressClass', generation: true },
  { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy', plural: 'networkpolicies', namespaced: true, model: 'V1NetworkPolicy', shortNames: ['netpol'], generation: true },
  // discovery.k8s.io/v1
  { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', plural: 'endpointslices', namespaced: true, model: 'V1EndpointSlice' },
  // events.k8s.io/v1 (stored apart from core/v1 Events here; see the README)
  { group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true, model: 'EventsV1Event', shortNames: ['ev'] },
  // storage.k8s.io/v1, scheduling.k8s.io/v1
  { group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses', namespaced: false, model: 'V1StorageClass', shortNames: ['sc'] },
  { group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass', plural: 'priorityclasses', namespaced: false, model: 'V1PriorityClass', shortNames: ['pc'] },
  // admissionregistration.k8s.io/v1 (stored and served; webhooks and policies are not run)
  { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration', plural: 'validatingwebhookconfigurations', namespaced: false, model: 'V1ValidatingWebhookConfiguration', categories: ['api-extensions'], generation: true },
  { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'MutatingWebhookConfiguration', plural: 'mutatingwebhookconfigurations', namespaced: false, model: 'V1MutatingWebhookConfiguration', categories: ['api-extensions'], generation: true },
  { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy', plural: 'validatingadmissionpolicies', namespaced: false, model: 'V1ValidatingAdmissionPolicy', categories: ['api-extensions'], status: true, generation: true },
  { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicyBinding', plural: 'validatingadmissionpolicybindings', namespaced: false, model: 'V1ValidatingAdmissionPolicyBinding', categories: ['api-extensions'], generation: true },
  // apiregistration.k8s.io/v1 (stored and served; nothing is aggregated: the Python client's YAML helpers create these)
  { group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService', plural: 'apiservices', namespaced: false, model: 'V1APIService', categories: ['api-extensions'], status: true, protobuf: false },
];
