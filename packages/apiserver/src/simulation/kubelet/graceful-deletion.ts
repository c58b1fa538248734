/**
 * Graceful deletion of Pods on the simulated kubelet, as kube-apiserver's pod strategy: a delete of
 * a Pod bound to a simulated Node and not finished marks it (`deletionTimestamp` at the end of the
 * grace period, `deletionGracePeriodSeconds`) and leaves it to the kubelet, which removes it once
 * the period is over on the simulation's clock. The period is the delete's `gracePeriodSeconds`,
 * else the Pod's `spec.terminationGracePeriodSeconds` (defaulted to 30). A zero period, an unbound
 * Pod, a finished one, or one on a Node nobody simulates, goes at once.
 */
import type { Clock } from '@kubeloop/resource';
import type { GracefulDeletion } from '../../objects/object-context.js';
import { timeText } from './simulated-cluster.js';

/** The delete hook of a simulation whose kubelet runs `nodeNames`. */
export function podGracefulDeletion(clock: Clock, nodeNames: readonly string[]): GracefulDeletion {
  const nodes = new Set(nodeNames);
  return (type, object, requestedSeconds) => {
    if (type.group !== '' || type.kind !== 'Pod') return undefined;
    const spec = (object.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
    const phase = (object.status as { phase?: string } | undefined)?.phase;
    if (!spec.nodeName || !nodes.has(spec.nodeName) || phase === 'Succeeded' || phase === 'Failed') return undefined;
    const seconds = requestedSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
    if (seconds <= 0) return undefined;
    return { seconds, deletionTimestamp: timeText(clock.now() + seconds * 1000) };
  };
}
