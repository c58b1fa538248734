/**
 * A Pod's `exec`, `attach`, `portforward` and `log` subresources: the embedded server runs no
 * container (not even with the cluster simulation, whose kubelet only plays Pod statuses), so each
 * answers a clear Status instead of a bare 404: 501 NotImplemented for the streams, 400 BadRequest
 * for logs (what kube-apiserver answers for a container with no log to read).
 */
import type { ResourceType } from '../types/resource-type.js';
import { badRequest, methodNotAllowed, notImplemented } from './status-error.js';
import type { StatusError } from './status-error.js';

const streams = ['exec', 'attach', 'portforward'];

/** Whether `subresource` is one of a Pod's container subresources. */
export function isContainerSubresource(type: ResourceType, subresource: string): boolean {
  return type.group === '' && type.plural === 'pods' && (streams.includes(subresource) || subresource === 'log');
}

/** The answer to a container subresource of the existing Pod `name` (its existence is checked first). */
export function containerSubresourceError(type: ResourceType, subresource: string, method: string, name: string): StatusError {
  const why = 'the embedded API server runs no containers (Pods are stored and, with simulate, their status is simulated, but no container runtime is behind them)';
  if (subresource === 'log') {
    if (method !== 'GET') return methodNotAllowed();
    return badRequest(`pod "${name}" has no logs: ${why}`);
  }
  if (method !== 'GET' && method !== 'POST') return methodNotAllowed();
  return notImplemented(type, name, `${subresource} is not supported for pod "${name}": ${why}`);
}
