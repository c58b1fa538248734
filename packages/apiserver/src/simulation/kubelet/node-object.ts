/** A simulated Node as its kubelet registers and reports it: labels, addresses, capacity, nodeInfo, conditions. */
import type { KubeObject } from '@kubeloop/resource';

/** The kubelet version the simulated Nodes report (the server's minor version). */
export const kubeletVersion = 'v1.32.0-kubeloop';

/** A Node condition as the kubelet writes it. */
export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
}

/** The Node's InternalIP: `10.0.0.N` for `node-N`. */
export function nodeAddress(index: number): string {
  return `10.0.${Math.floor(index / 256)}.${index % 256}`;
}

/** The Node's Pod range: `10.244.N.0/24` for `node-N` (Pod IPs are taken from it). */
export function podCidr(index: number): string {
  return `10.244.${index}.0/24`;
}

/** The Node as registered, before its first status. */
export function registeredNode(name: string, index: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { podCIDR: podCidr(index), podCIDRs: [podCidr(index)] },
  };
}

/** The kubelet's four conditions, healthy or (`ready: false`) with the runtime network not ready. */
export function kubeletConditions(ready: boolean, now: string): NodeCondition[] {
  const condition = (type: string, status: 'True' | 'False', reason: string, message: string): NodeCondition => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  return [
    condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    ready
      ? condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')
      : condition(
          'Ready',
          'False',
          'KubeletNotReady',
          'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
        ),
  ];
}

/**
 * `next` with the transition times of `previous` kept where a condition's status did not change
 * (the kubelet moves `lastTransitionTime` only on a change).
 */
export function keepTransitions<T extends { type: string; status: string; lastTransitionTime: string }>(next: T[], previous: readonly T[] | undefined): T[] {
  return next.map((condition) => {
    const before = previous?.find((p) => p.type === condition.type);
    return before && before.status === condition.status ? { ...condition, lastTransitionTime: before.lastTransitionTime } : condition;
  });
}

/** The Node's status fields besides its conditions. */
export function nodeStatusBody(name: string, index: number, capacity: Readonly<Record<string, string>>): Record<string, unknown> {
  return {
    capacity: { ...capacity },
    allocatable: { ...capacity },
    addresses: [
      { type: 'InternalIP', address: nodeAddress(index) },
      { type: 'Hostname', address: name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      architecture: 'amd64',
      bootID: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      containerRuntimeVersion: 'containerd://simulated',
      kernelVersion: 'simulated',
      kubeProxyVersion: kubeletVersion,
      kubeletVersion,
      machineID: `kubeloop${String(index).padStart(24, '0')}`,
      operatingSystem: 'linux',
      osImage: 'kubeloop simulated node',
      systemUUID: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    },
  };
}
