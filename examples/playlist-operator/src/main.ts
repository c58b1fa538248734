/**
 * `npm run demo`: the Playlist operator end to end. Starts (or connects to) an API server,
 * installs the CRD, runs the operator with leader election, metrics and health, applies sample
 * Playlists and reports as they converge, then runs until Ctrl-C and shuts down gracefully.
 * With `--replicas N` it runs N replicas (this process and N-1 it starts) that share the
 * Playlists through a shard ring, each saying which slots and which Playlists it owns.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startApiServer } from '@kubeloop/apiserver';
import { Client, ConfigMapKind, HttpTransport, LeaseKind, ensureCrd, isKubeconfigError, loadKubeConfig } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { OperatorServer, ReconcileAction, runOperator, shutdownSignal, slotOf } from '@kubeloop/operator';
import type { LogAttributes, Logger } from '@kubeloop/operator';
import { PlaylistCatalogue } from './catalogue.js';
import { USAGE, demoKubeconfigPath, parseDemoOptions } from './cli-options.js';
import type { DemoOptions } from './cli-options.js';
import { PlaylistKind, playlistCrd } from './playlist.js';
import { createPlaylistOperator } from './playlist-operator.js';
import type { PlaylistReconcilerHooks } from './playlist-reconciler.js';
import { TourTimeoutError, runTour } from './demo-tour.js';
import { setupTracing } from './tracing.js';
import { ReplicaProcesses, replicaEnv, stopWithTheDemo } from './replica-processes.js';
import { waitForRingSpread } from './ring-ready.js';

const out = (line: string): void => void process.stdout.write(`${line}\n`);
const err = (line: string): void => void process.stderr.write(`${line}\n`);

function attrs(attributes: LogAttributes | undefined): string {
  if (!attributes) return '';
  return Object.entries(attributes)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}=${v instanceof Error ? v.message : typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('');
}

/** Short lines for a terminal: info on stdout, problems on stderr; with replicas, tagged with this one's identity. */
function terminalLogger(tag: string): Logger {
  return {
    debug: () => undefined,
    info: (message, a) => out(`${tag}  · ${message}${attrs(a)}`),
    warn: (message, a) => err(`${tag}  ! ${message}${attrs(a)}`),
    error: (message, a) => err(`${tag}  ! ${message}${attrs(a)}`),
  };
}

/** Slots of the demo's shard ring (ShardRing's default). */
const ringSlots = 16;

/** The slot of an object in the demo's ring: its uid's hash. */
function slotOfObject(object: KubeObject): number {
  return slotOf(object.metadata.uid ?? '', ringSlots);
}

/** The options of a replica this process starts (`--replicas`): the same cluster, ring and timings, no samples. */
function replicaArgs(options: DemoOptions, kubeconfigPath: string, identity: string): string[] {
  return [
    ...['--kubeconfig', kubeconfigPath, '--no-samples', '--sharded', '--identity', identity, '--namespace', options.namespace],
    ...['--work-dir', options.workDir, '--lease-name', options.leaseName, '--metrics-host', options.metricsHost, '--timeout', String(options.timeoutMs / 1000)],
    ...['--lease-duration-ms', String(options.leaseDurationMs), '--renew-deadline-ms', String(options.renewDeadlineMs), '--retry-period-ms', String(options.retryPeriodMs)],
    ...['--work-delay-ms', String(options.workDelayMs), ...(options.reconcileLog ? ['--reconcile-log', options.reconcileLog] : [])],
  ];
}

async function main(argv: string[]): Promise<number> {
  let options: DemoOptions;
  try {
    options = parseDemoOptions(argv);
  } catch (error) {
    err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    out(USAGE);
    return 0;
  }

  // A replica this demo started (`--replicas`) tells only what is its own: its metrics and its slots.
  const startedByDemo = process.env[replicaEnv] !== undefined;
  const identity = options.replicas > 1 ? `${options.identity}-1` : options.identity;
  const tag = options.replicas > 1 ? `[${identity}] ` : '';
  const demoLogger = terminalLogger(tag);
  const tracing = setupTracing('playlist-operator');
  mkdirSync(options.workDir, { recursive: true });
  let apiServer: Awaited<ReturnType<typeof startApiServer>> | undefined;
  let clusterLine: string;
  let kubeconfigPath: string;
  let kubeConfig: ReturnType<typeof loadKubeConfig> | undefined;
  if (options.inCluster) {
    // No path: loadKubeConfig takes the pod's service account (token, CA, KUBERNETES_SERVICE_HOST).
    kubeConfig = loadKubeConfig();
    kubeconfigPath = '';
    clusterLine = `${kubeConfig.getCurrentCluster()?.server ?? '?'} (in-cluster, service account)`;
  } else if (options.kubeconfig) {
    kubeconfigPath = options.kubeconfig;
    clusterLine = `from ${kubeconfigPath}`;
  } else {
    // A simulated cluster (Nodes, a kubelet, the workload controllers), as a dev cluster would have.
    apiServer = await startApiServer({ simulate: true });
    kubeconfigPath = demoKubeconfigPath(options.workDir);
    await apiServer.writeKubeconfig(kubeconfigPath);
    clusterLine = `${apiServer.url} (embedded, in this process, simulating 3 Nodes)`;
  }
  kubeConfig ??= loadKubeConfig({ kubeconfigPath, kubeconfigPathFrom: options.kubeconfigFrom });
  if (options.kubeconfig) clusterLine = `${kubeConfig.getCurrentCluster()?.server ?? '?'} (context ${kubeConfig.getCurrentContext()}, ${clusterLine})`;
  const transport = HttpTransport.fromKubeConfig(kubeConfig);
  const handle = shutdownSignal({
    onSignal: (sig, count) => out(count === 1 ? `received ${sig}: shutting down gracefully (press Ctrl-C again to force)` : `received ${sig} again: exiting now`),
  });
  const stop = new AbortController();
  if (startedByDemo) stopWithTheDemo(stop);
  const signal = AbortSignal.any([handle.signal, stop.signal]);
  let replicas: ReplicaProcesses | undefined;
  const server = new OperatorServer({ host: options.metricsHost, port: options.metricsPort });

  try {
    // In a pod the CRD comes with the deploy manifests: the operator's RBAC may not create CRDs.
    if (!options.inCluster) await ensureCrd(transport, playlistCrd, { signal, timeoutMs: options.timeoutMs });

    const catalogue = new PlaylistCatalogue(join(options.workDir, 'catalogue'));
    const swept = await catalogue.sweepUnfinishedWrites();
    if (swept > 0) demoLogger.info(`removed ${swept} unfinished catalogue write(s) of a process that stopped mid-write`);
    let tourDone = !options.samples;
    const built = createPlaylistOperator({
      transport,
      namespace: options.samples ? options.namespace : '',
      catalogue,
      logger: demoLogger,
      hooks: reconcileHooks(options, identity, tag, () => tourDone),
      workDelayMs: options.workDelayMs,
      shardSlotOf: options.sharded ? slotOfObject : undefined,
    });
    server.registerCollectors(built.collectors);
    await server.start();

    if (startedByDemo) {
      out(`replica ${identity} of ring ${options.namespace}/${options.leaseName}: metrics ${server.url}/metrics`);
    } else {
      out('kubeloop demo: the Playlist operator');
      out(`  API server   ${clusterLine}`);
      if (!options.inCluster) {
        out(`  kubectl      export KUBECONFIG=${kubeconfigPath}`);
        out(`               kubectl get playlists -n ${options.namespace}    (kubectl get pl,cm,lease -n ${options.namespace})`);
      }
      out(`  metrics      ${server.url}/metrics`);
      out(`  health       ${server.url}/healthz   ${server.url}/readyz?verbose`);
      out(`  tracing      ${tracing.endpoint ? `OTLP/HTTP to ${tracing.endpoint}` : 'off (set OTEL_EXPORTER_OTLP_ENDPOINT to export spans)'}`);
      out(`  catalogue    ${catalogue.dir} (the external side effect the finalizer undoes)`);
      if (options.sharded) out(`  shard ring   ${options.namespace}/${options.leaseName}, ${ringSlots} slots, ${options.replicas > 1 ? `${options.replicas} replicas: ${identity} (this process) and the ones it starts` : `as ${identity}`}`);
      else out(`  leader lease ${options.namespace}/${options.leaseName} as ${identity}`);
      if (!options.inCluster) out(`installed CRD ${playlistCrd.metadata.name}`);
    }

    if (options.replicas > 1) {
      const others = Array.from({ length: options.replicas - 1 }, (_, i) => `${options.identity}-${i + 2}`);
      replicas = new ReplicaProcesses(others, (id) => replicaArgs(options, kubeconfigPath, id), out, err);
    }

    const run = runOperator({
      operator: built.operator,
      server,
      hasSynced: () => built.informer.hasSynced(),
      signal,
      logger: demoLogger,
      shutdownDeadlineMs: 20_000,
      ...(options.sharded
        ? {
            // Each replica runs the slots the ring gives it; the ring's log lines say which.
            sharding: {
              client: new Client(LeaseKind, transport),
              name: options.leaseName,
              namespace: options.namespace,
              identity,
              slots: ringSlots,
              leaseDurationMs: options.leaseDurationMs,
              renewDeadlineMs: options.renewDeadlineMs,
              retryPeriodMs: options.retryPeriodMs,
            },
          }
        : {
            leaderElection: {
              client: new Client(LeaseKind, transport),
              lease: { namespace: options.namespace, name: options.leaseName },
              identity,
              leaseDurationMs: options.leaseDurationMs,
              renewDeadlineMs: options.renewDeadlineMs,
              retryPeriodMs: options.retryPeriodMs,
              onNewLeader: (id: string) => out(`leader: ${id}${id === identity ? ' (this process)' : ''}`),
            },
          }),
    });

    let tourFailure: string | undefined;
    if (options.samples) {
      const playlists = new Client(PlaylistKind, transport);
      const ring = { namespace: options.namespace, name: options.leaseName };
      const everyReplica = Array.from({ length: options.replicas }, (_, i) => `${options.identity}-${i + 1}`);
      const spread = options.replicas > 1 ? waitForRingSpread(new Client(LeaseKind, transport), ring, everyReplica, { timeoutMs: options.timeoutMs, signal, print: out }) : Promise.resolve();
      const tour = spread.then(() => runTour({
        playlists,
        configMaps: new Client(ConfigMapKind, transport),
        catalogue,
        namespace: options.namespace,
        timeoutMs: options.timeoutMs,
        print: out,
        signal,
      })).then(
        () => {
          tourDone = true;
          if (options.smoke) {
            out('smoke: every sample converged; shutting down');
            stop.abort();
          } else {
            out(`running; try: kubectl edit playlist morning-standup -n ${options.namespace}. Ctrl-C to stop.`);
          }
        },
        (error: unknown) => {
          tourDone = true;
          if (signal.aborted && !(error instanceof TourTimeoutError)) return;
          tourFailure = error instanceof Error ? error.message : String(error);
          err(`demo failed: ${tourFailure}`);
          if (options.smoke) stop.abort();
        },
      );
      void tour;
    } else {
      out('running the operator only (--no-samples). Ctrl-C to stop.');
    }

    const result = await run;
    // The replicas leave the ring while the embedded API server still runs.
    await replicas?.stop(30_000);
    replicas = undefined;
    const how = result.leaderElection ? ` (leader election: ${result.leaderElection})` : options.sharded ? ' (left the shard ring)' : '';
    out(`${startedByDemo ? '' : tag}stopped${how}; exit code ${tourFailure ? 1 : result.exitCode}`);
    return tourFailure ? 1 : result.exitCode;
  } finally {
    await replicas?.stop(30_000);
    handle.dispose();
    await server.stop();
    transport.close();
    await apiServer?.stop();
    await tracing.shutdown();
  }
}

/**
 * Operator-side lines (after the tour, so that kubectl edits show up; sharded, always, with the
 * object's slot, to show which replica handles what) and the reconcile log of tests.
 */
function reconcileHooks(options: DemoOptions, identity: string, tag: string, tourDone: () => boolean): PlaylistReconcilerHooks {
  const log = options.reconcileLog;
  const record = (entry: Record<string, unknown>): void => {
    // Synchronous append: the line is on disk before the reconcile goes on, even if the process is killed next.
    if (log) appendFileSync(log, `${JSON.stringify({ identity, pid: process.pid, t: Date.now(), ...entry })}\n`);
  };
  const quiet = (): boolean => !options.sharded && !tourDone();
  return {
    onStart: (id, action) => record({ phase: 'start', key: `${id.namespace}/${id.name}`, action: ReconcileAction[action] }),
    onEnd: (playlist, action, outcome) => {
      const key = `${playlist.metadata.namespace ?? ''}/${playlist.metadata.name}`;
      record({ phase: 'end', key, action: ReconcileAction[action], outcome: outcome.type });
      if (quiet()) return;
      const slot = options.sharded ? ` (slot ${slotOfObject(playlist)})` : '';
      if (outcome.type === 'ready' && outcome.changed) out(`${tag}  · reconciled ${key}${slot}: ConfigMap ${outcome.configMap} written, Ready`);
      else if (outcome.type === 'invalid' && outcome.changed) out(`${tag}  · ${key}${slot} is invalid: ${outcome.message}`);
      else if (outcome.type === 'deleted') out(`${tag}  · ${key}${slot} deleted: catalogue entry withdrawn, finalizer removed`);
    },
  };
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // A bad kubeconfig is the user's to fix: its message says which file and why, a stack trace would bury it.
    err(`demo failed: ${isKubeconfigError(error) ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
