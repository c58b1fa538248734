/**
 * The kubeconfig of an embedded server: plain HTTP with `insecure-skip-tls-verify: true` (which
 * client-node requires before it talks to an `http://` server, and kubectl accepts), or HTTPS with
 * the server's CA as `certificate-authority-data`; a user with the server's bearer token (a dummy
 * one when the server does not authenticate).
 */
import { stringify } from 'yaml';

/** The dummy token written into kubeconfigs. */
export const kubeconfigToken = 'kubeloop-dummy-token';

/** Options of {@link kubeconfigFor}. */
export interface KubeconfigOptions {
  /** PEM of the CA that signed an `https://` server's certificate. Default: none (TLS not verified). */
  caCertificate?: string;
  /** The bearer token. Default {@link kubeconfigToken}. */
  token?: string;
}

/** Kubeconfig YAML for a server at `url`, context `kubeloop`, namespace `default`. */
export function kubeconfigFor(url: string, options: KubeconfigOptions = {}): string {
  const cluster: Record<string, unknown> = { server: url };
  if (options.caCertificate !== undefined) cluster['certificate-authority-data'] = Buffer.from(options.caCertificate, 'utf8').toString('base64');
  else cluster['insecure-skip-tls-verify'] = true;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kubeloop', cluster }],
    users: [{ name: 'kubeloop', user: { token: options.token ?? kubeconfigToken } }],
    contexts: [{ name: 'kubeloop', context: { cluster: 'kubeloop', user: 'kubeloop', namespace: 'default' } }],
    'current-context': 'kubeloop',
    preferences: {},
  });
}
