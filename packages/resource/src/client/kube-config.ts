import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type http from 'node:http';
import { createRequire } from 'node:module';
import type * as ClientNodeModule from '@kubernetes/client-node';
import type { Cluster, KubeConfig } from '@kubernetes/client-node';
import { KubeconfigError, KubeloopError } from '../errors.js';
import type { KubeconfigSource } from '../errors.js';
import type { HttpTransportConfig, HttpTransportOptions, TransportCredentials, TransportTls } from './transport.js';

type ClientNode = typeof ClientNodeModule;

let clientNode: ClientNode | undefined;

/**
 * @kubernetes/client-node takes most of a second to load; only programs that read a kubeconfig pay for it
 * (the embedded API server and unit tests never do). Node >= 20.19 can `require` an ES module.
 */
function loadClientNode(): ClientNode {
  clientNode ??= createRequire(import.meta.url)('@kubernetes/client-node') as ClientNode;
  return clientNode;
}

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** Options of {@link loadKubeConfig}. */
export interface LoadKubeConfigOptions {
  /** Read this kubeconfig file. Default: `KUBECONFIG`, then in-cluster, then `~/.kube/config`. */
  kubeconfigPath?: string | undefined;
  /**
   * How the user gave `kubeconfigPath`, for error messages (e.g. `'--kubeconfig'` for a command-line
   * flag). Default: `'the kubeconfigPath option'`.
   */
  kubeconfigPathFrom?: string | undefined;
  /** Use this context instead of the file's `current-context`. Default: the file's. */
  context?: string | undefined;
}

/**
 * Loads a `KubeConfig` (@kubernetes/client-node) the way operators expect: an explicit path first, then the
 * `KUBECONFIG` variable (several files are merged; files it names that do not exist are skipped, as kubectl
 * does), then the in-cluster service account when running in a pod, then `~/.kube/config`.
 * @throws KubeconfigError when the file is missing (every file of `KUBECONFIG`), unreadable or not a
 *   kubeconfig, or when its current context has no cluster; the message names the file and where its
 *   path came from. A `KubeloopError` (code `ConfigError`) for an unknown `context`.
 */
export function loadKubeConfig(options: LoadKubeConfigOptions = {}): KubeConfig {
  const kc = new (loadClientNode().KubeConfig)();
  let files: KubeconfigFiles | undefined;
  if (options.kubeconfigPath) {
    files = { paths: [options.kubeconfigPath], source: 'option', from: options.kubeconfigPathFrom ?? 'the kubeconfigPath option' };
  } else if (process.env.KUBECONFIG) {
    files = { paths: process.env.KUBECONFIG.split(delimiter).filter((p) => p !== ''), source: 'KUBECONFIG', from: 'KUBECONFIG' };
  } else if (process.env.KUBERNETES_SERVICE_HOST && process.env.KUBERNETES_SERVICE_PORT && existsSync(SERVICE_ACCOUNT_TOKEN)) {
    kc.loadFromCluster();
  } else {
    files = { paths: [join(homedir(), '.kube', 'config')], source: 'default', from: 'the default location (KUBECONFIG is not set)' };
  }
  if (files !== undefined) loadFiles(kc, files);
  if (options.context !== undefined) {
    if (kc.getContextObject(options.context) === null) {
      throw new KubeloopError('ConfigError', `kubeconfig has no context named ${JSON.stringify(options.context)}`);
    }
    kc.setCurrentContext(options.context);
  }
  if (files !== undefined && kc.getCurrentCluster() === null) {
    const [path = ''] = files.paths;
    throw new KubeconfigError(`kubeconfig ${path} (from ${files.from}) has no cluster for its current context ${JSON.stringify(kc.getCurrentContext() ?? '')}`, { path, source: files.source });
  }
  return kc;
}

/** The kubeconfig files to read and where their paths came from. */
interface KubeconfigFiles {
  paths: string[];
  source: KubeconfigSource;
  /** For messages: `--kubeconfig`, `KUBECONFIG`, the default location. */
  from: string;
}

/** Reads and merges `files` into `kc` (the first file's current context wins, as kubectl). */
function loadFiles(kc: KubeConfig, files: KubeconfigFiles): void {
  const { source, from } = files;
  // A KUBECONFIG list may name files that do not exist; an explicit or default path must exist.
  const present = source === 'KUBECONFIG' ? files.paths.filter((p) => existsSync(p)) : files.paths;
  if (present.length === 0 || !existsSync(present[0]!)) {
    const path = present[0] ?? files.paths.join(delimiter);
    throw new KubeconfigError(`kubeconfig ${path} (from ${from}) does not exist`, { path, source });
  }
  present.forEach((path, i) => {
    const target = i === 0 ? kc : new (loadClientNode().KubeConfig)();
    try {
      target.loadFromFile(path);
    } catch (error) {
      throw new KubeconfigError(`kubeconfig ${path} (from ${from}) cannot be read: ${firstLine(error)}`, { path, source, cause: error });
    }
    if (target !== kc) kc.mergeConfig(target, true);
  });
}

/** The first line of an error's message (a YAML parser's message goes on with a code excerpt). */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

/** The private hooks of client-node 1.4's `KubeConfig` that avoid building a new agent per request. */
interface KubeConfigInternals {
  applyAuthorizationHeader?(opts: { headers: Record<string, string>; cert?: unknown; key?: unknown }): Promise<void>;
  createAgent?(cluster: Cluster, agentOptions: Record<string, unknown>): http.Agent;
}

/**
 * The {@link HttpTransportConfig} of the current context of a kubeconfig. TLS material is read once; the
 * authorization header (tokens, token files, exec and auth-provider plugins) is asked of the `KubeConfig` before
 * every request, since its authenticators cache credentials only until they expire.
 */
export function httpTransportConfigFromKubeConfig(kc: KubeConfig, options: HttpTransportOptions = {}): HttpTransportConfig {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) {
    throw new KubeloopError('ConfigError', `kubeconfig context ${JSON.stringify(kc.getCurrentContext())} has no cluster`);
  }
  const user = kc.getCurrentUser();
  const tls: TransportTls = {};
  const ca = fileOrBase64(cluster.caFile, cluster.caData);
  if (ca) tls.ca = ca;
  if (cluster.skipTLSVerify) tls.rejectUnauthorized = false;
  if (cluster.tlsServerName) tls.servername = cluster.tlsServerName;
  const headers: Record<string, string> = {};
  if (user) {
    const cert = fileOrBase64(user.certFile, user.certData);
    const key = fileOrBase64(user.keyFile, user.keyData);
    if (cert && key) {
      tls.cert = cert;
      tls.key = key;
    }
    if (user.impersonateUser) headers['Impersonate-User'] = user.impersonateUser;
    if (user.username) headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
  }
  const config: HttpTransportConfig = { ...options, server: cluster.server, tls, headers };
  if (user) config.authenticate = authenticatorFor(kc);
  if (cluster.proxyUrl) config.agent = proxyAgent(kc, cluster, tls, options);
  return config;
}

function authenticatorFor(kc: KubeConfig): (credentials: TransportCredentials) => Promise<void> {
  const internals = kc as unknown as KubeConfigInternals;
  if (typeof internals.applyAuthorizationHeader === 'function') {
    return async (credentials) => {
      await internals.applyAuthorizationHeader!.call(kc, credentials);
    };
  }
  // Public but slower fallback (builds an agent each time) should a client-node release rename the hook.
  return async (credentials) => {
    const opts: { headers: Record<string, string>; cert?: string | Buffer; key?: string | Buffer } = { headers: {} };
    await kc.applyToHTTPSOptions(opts);
    const authorization = opts.headers.Authorization;
    if (authorization !== undefined) credentials.headers.Authorization = authorization;
    // The transport ignores these when the kubeconfig already gave a static client certificate.
    credentials.cert = opts.cert;
    credentials.key = opts.key;
  };
}

function proxyAgent(kc: KubeConfig, cluster: Cluster, tls: TransportTls, options: HttpTransportOptions): http.Agent {
  const internals = kc as unknown as KubeConfigInternals;
  if (typeof internals.createAgent !== 'function') {
    throw new KubeloopError('ConfigError', `proxy-url ${cluster.proxyUrl} is not supported by this @kubernetes/client-node`);
  }
  return internals.createAgent.call(kc, cluster, {
    ...tls,
    keepAlive: options.keepAlive ?? true,
    maxSockets: options.maxSockets ?? 50,
  });
}

function fileOrBase64(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file) return readFileSync(file);
  if (data) return Buffer.from(data, 'base64');
  return undefined;
}
