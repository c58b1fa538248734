/** Command-line options of the demo. */
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The demo's settings, after defaults. */
export interface DemoOptions {
  /** A kubeconfig of a real cluster; undefined = start the embedded API server. */
  kubeconfig: string | undefined;
  /** Where `kubeconfig` came from, for messages: the `--kubeconfig` flag or the `KUBECONFIG` variable. */
  kubeconfigFrom: '--kubeconfig' | 'KUBECONFIG' | undefined;
  /**
   * Run in a pod: the service account's credentials, namespace and identity default to POD_NAMESPACE and
   * POD_NAME, and the CRD is not installed (the deploy manifests apply it; the operator's RBAC cannot). Default: false.
   */
  inCluster: boolean;
  namespace: string;
  smoke: boolean;
  /** Bound of the smoke run, and of each wait in the tour. */
  timeoutMs: number;
  samples: boolean;
  identity: string;
  metricsPort: number;
  metricsHost: string;
  workDir: string;
  leaseName: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  workDelayMs: number;
  /** Append one JSON line per reconcile start and end (tests check leader exclusivity with it). */
  reconcileLog: string | undefined;
  /**
   * Run as one replica of a shard ring (named by `leaseName`, its Leases in `namespace`) instead of
   * leader election: each replica handles the Playlists of the slots it owns. Default: false
   * (true with `replicas` above 1).
   */
  sharded: boolean;
  /** Replicas to run: this process and `replicas - 1` more, each a process of its own, all sharded. Default: 1. */
  replicas: number;
  help: boolean;
}

/** The usage text. */
export const USAGE = `Usage: npm run demo -- [options]    (or: node examples/playlist-operator/dist/main.js [options])

Runs the Playlist operator. Without --kubeconfig (and without KUBECONFIG in the environment) it
starts an embedded Kubernetes API server on a free loopback port first.

Options:
  --kubeconfig FILE        use the cluster of this kubeconfig (default: $KUBECONFIG, else embedded)
  --in-cluster             run in a pod (the Dockerfile's command): the pod's service account, lease in
                           $POD_NAMESPACE as $POD_NAME, the CRD applied already (not installed)
  --namespace NS           namespace of the samples and of the lease (default: default)
  --smoke                  exit 0 once every sample converged; non-zero with the reason otherwise
  --timeout SECONDS        bound of --smoke and of each step of the tour (default: 60)
  --no-samples             run the operator only (no sample playlists, no tour)
  --identity ID            leader election identity (default: <hostname>-<pid>)
  --metrics-port N         port of /metrics, /healthz, /readyz (default: 0 = a free port)
  --metrics-host HOST      interface of that server (default: 127.0.0.1)
  --work-dir DIR           kubeconfig and catalogue of the demo (default: <repo>/.kubeloop/demo)
  --lease-name NAME        name of the leader election Lease (default: playlist-operator)
  --lease-duration-ms N    leader election timings (defaults: 15000, 10000, 2000)
  --renew-deadline-ms N
  --retry-period-ms N
  --work-delay-ms N        make every reconcile take N ms longer (shows in-flight work)
  --reconcile-log FILE     append a JSON line per reconcile start/end
  --sharded                run as one replica of a shard ring (named by --lease-name) instead of
                           leader election: each replica handles the Playlists of its slots
  --replicas N             run N sharded replicas, each its own process: this one and N-1 started
                           by it, their lines tagged with their identity (default: 1)
  -h, --help               show this text

Environment: OTEL_EXPORTER_OTLP_ENDPOINT=http://host:4318 exports traces over OTLP/HTTP.`;

function int(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a non-negative integer, got ${JSON.stringify(text)}`);
  return value;
}

/** The default work directory: `.kubeloop/demo` at the root of the repository (gitignored). */
export function defaultWorkDir(): string {
  return fileURLToPath(new URL('../../../.kubeloop/demo', import.meta.url));
}

/** The file the demo writes for kubectl when it runs the embedded API server. */
export function demoKubeconfigPath(workDir: string): string {
  return join(workDir, 'kubeconfig');
}

/**
 * KUBECONFIG, unless it is the demo's own file: after \`export KUBECONFIG=<that file>\`, running the
 * demo again must start a new embedded server, not dial the one that stopped with the last run.
 */
function kubeconfigFromEnv(env: NodeJS.ProcessEnv, workDir: string): string | undefined {
  const value = env.KUBECONFIG;
  if (!value) return undefined;
  return resolve(value) === resolve(demoKubeconfigPath(workDir)) ? undefined : value;
}

/** Parses argv (without node and script). Throws with a message for bad input. */
export function parseDemoOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): DemoOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      kubeconfig: { type: 'string' },
      'in-cluster': { type: 'boolean' },
      namespace: { type: 'string' },
      smoke: { type: 'boolean' },
      timeout: { type: 'string' },
      'no-samples': { type: 'boolean' },
      identity: { type: 'string' },
      'metrics-port': { type: 'string' },
      'metrics-host': { type: 'string' },
      'work-dir': { type: 'string' },
      'lease-name': { type: 'string' },
      'lease-duration-ms': { type: 'string' },
      'renew-deadline-ms': { type: 'string' },
      'retry-period-ms': { type: 'string' },
      'work-delay-ms': { type: 'string' },
      'reconcile-log': { type: 'string' },
      sharded: { type: 'boolean' },
      replicas: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const workDir = values['work-dir'] ?? defaultWorkDir();
  const inCluster = values['in-cluster'] ?? false;
  if (inCluster && values.kubeconfig !== undefined) throw new Error('--in-cluster and --kubeconfig exclude each other');
  // What client-node's in-cluster config needs; without it, loading would fall back to ~/.kube/config.
  if (inCluster && !(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT)) throw new Error('--in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not in a pod)');
  const kubeconfig = inCluster ? undefined : (values.kubeconfig ?? kubeconfigFromEnv(env, workDir));
  const replicas = int('replicas', values.replicas, 1);
  if (replicas < 1) throw new Error('--replicas must be at least 1');
  // In a pod the Deployment's replicas are the replicas: each pod runs --sharded.
  if (inCluster && replicas > 1) throw new Error('--replicas starts processes on this machine: in a pod, set the Deployment replicas and pass --sharded');
  const podEnv = (name: string): string | undefined => (inCluster ? env[name] || undefined : undefined);
  return {
    kubeconfig,
    kubeconfigFrom: values.kubeconfig !== undefined ? '--kubeconfig' : kubeconfig !== undefined ? 'KUBECONFIG' : undefined,
    inCluster,
    namespace: values.namespace ?? podEnv('POD_NAMESPACE') ?? 'default',
    smoke: values.smoke ?? false,
    timeoutMs: int('timeout', values.timeout, 60) * 1000,
    samples: !(values['no-samples'] ?? false),
    identity: values.identity ?? podEnv('POD_NAME') ?? `${hostname()}-${process.pid}`,
    metricsPort: int('metrics-port', values['metrics-port'], 0),
    metricsHost: values['metrics-host'] ?? '127.0.0.1',
    workDir,
    leaseName: values['lease-name'] ?? 'playlist-operator',
    leaseDurationMs: int('lease-duration-ms', values['lease-duration-ms'], 15_000),
    renewDeadlineMs: int('renew-deadline-ms', values['renew-deadline-ms'], 10_000),
    retryPeriodMs: int('retry-period-ms', values['retry-period-ms'], 2_000),
    workDelayMs: int('work-delay-ms', values['work-delay-ms'], 0),
    reconcileLog: values['reconcile-log'],
    sharded: (values.sharded ?? false) || replicas > 1,
    replicas,
    help: values.help ?? false,
  };
}
