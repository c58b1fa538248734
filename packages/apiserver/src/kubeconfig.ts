/**
 * The kubeconfig of an embedded server: plain HTTP with `insecure-skip-tls-verify: true` (which
 * client-node requires before it talks to an `http://` server, and kubectl accepts) and a user
 * with a dummy bearer token (the server does not authenticate).
 */
import { stringify } from 'yaml';

/** The dummy token written into kubeconfigs. */
export const kubeconfigToken = 'kubeloop-dummy-token';

/** Kubeconfig YAML for a server at `url`, context `kubeloop`, namespace `default`. */
export function kubeconfigFor(url: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kubeloop', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'kubeloop', user: { token: kubeconfigToken } }],
    contexts: [{ name: 'kubeloop', context: { cluster: 'kubeloop', user: 'kubeloop', namespace: 'default' } }],
    'current-context': 'kubeloop',
    preferences: {},
  });
}
