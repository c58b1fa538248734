/**
 * The lists of built-in types that strategic merge patch merges rather than replaces: Go's
 * `patchStrategy:"merge"` tags (`x-kubernetes-patch-strategy: merge` in the published OpenAPI),
 * with their `patchMergeKey` (`x-kubernetes-patch-merge-key`); '' marks a list of primitives
 * merged as a set. Keyed by `Model.field`. The generated model data has no patch tags (the client
 * models drop them), so they are kept here; `builtin-models.test.ts` checks that every entry names
 * a list field of a generated model.
 */
export const patchMergeKeys: Readonly<Record<string, string>> = {
  'V1ObjectMeta.finalizers': '',
  'V1ObjectMeta.ownerReferences': 'uid',
  'V1PodSpec.containers': 'name',
  'V1PodSpec.initContainers': 'name',
  'V1PodSpec.ephemeralContainers': 'name',
  'V1PodSpec.volumes': 'name',
  'V1PodSpec.imagePullSecrets': 'name',
  'V1PodSpec.hostAliases': 'ip',
  'V1PodSpec.topologySpreadConstraints': 'topologyKey',
  'V1PodSpec.resourceClaims': 'name',
  'V1PodSpec.schedulingGates': 'name',
  'V1Container.ports': 'containerPort',
  'V1Container.env': 'name',
  'V1Container.volumeMounts': 'mountPath',
  'V1Container.volumeDevices': 'devicePath',
  'V1EphemeralContainer.ports': 'containerPort',
  'V1EphemeralContainer.env': 'name',
  'V1EphemeralContainer.volumeMounts': 'mountPath',
  'V1EphemeralContainer.volumeDevices': 'devicePath',
  'V1PodStatus.conditions': 'type',
  'V1PodStatus.podIPs': 'ip',
  'V1PodStatus.hostIPs': 'ip',
  'V1PodStatus.resourceClaimStatuses': 'name',
  'V1ServiceSpec.ports': 'port',
  'V1ServiceStatus.conditions': 'type',
  'V1ServiceAccount.secrets': 'name',
  'V1NodeSpec.podCIDRs': '',
  'V1NodeStatus.conditions': 'type',
  'V1NodeStatus.addresses': 'type',
  'V1PersistentVolumeClaimStatus.conditions': 'type',
  'V1ReplicationControllerStatus.conditions': 'type',
  'V1DeploymentStatus.conditions': 'type',
  'V1ReplicaSetStatus.conditions': 'type',
  'V1StatefulSetStatus.conditions': 'type',
  'V1DaemonSetStatus.conditions': 'type',
  'V1JobStatus.conditions': 'type',
  'V1PodDisruptionBudgetStatus.conditions': 'type',
  'V2HorizontalPodAutoscalerStatus.conditions': 'type',
};
