/**
 * `startTestEnv()`: what controller-runtime's envtest gives Go operators, on the embedded API server:
 * a real API server over HTTP on 127.0.0.1 with the operator's CRDs installed and served, a
 * kubeconfig file for it, typed clients, the server's fault injection, and `stop()`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { writeOwnerOnly } from '../owner-only-file.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, HttpTransport, NamespaceKind, ensureCrd } from '@kubeloop/resource';
import type { CustomResourceDefinition, EnsureCrdOptions, Kind, KubeObject } from '@kubeloop/resource';
import { startApiServer } from '../api-server.js';
import type { ApiServer, ApiServerOptions } from '../api-server.js';
import type { Faults } from '../http/faults.js';
import { ConvergenceError } from './convergence-error.js';
import { eventually } from './eventually.js';
import type { EventuallyOptions } from './eventually.js';
import type { FaultSchedule } from './fault-schedule.js';
import { runFaultSchedule } from './run-fault-schedule.js';
import type { RunFaultScheduleOptions } from './run-fault-schedule.js';

/** Options of {@link startTestEnv}. */
export interface TestEnvOptions {
  /** CRDs installed before `startTestEnv` resolves, each Established and served. Default: none. */
  crds?: readonly CustomResourceDefinition[] | undefined;
  /** Namespaces created besides `default` and `kube-system`. Default: none. */
  namespaces?: readonly string[] | undefined;
  /** Options of the embedded server. Default: `startApiServer`'s (127.0.0.1, a free port, in memory). */
  server?: ApiServerOptions | undefined;
  /**
   * Keeps the server's objects in a temporary data directory (removed by `stop()`, written with
   * `fsync: 'never'` unless `server.fsync` says otherwise), so that {@link TestEnv.restart} and the
   * `restart` fault keep them. Default false (memory only; a `server.dataDir` also makes `restart()` work).
   */
  persistent?: boolean | undefined;
  /**
   * Simulates the cluster around the operator (the same as `server.simulate`): Deployments make
   * ReplicaSets and Pods, Pods run on simulated Nodes and become Ready. Pass `{ clock }` with a
   * `VirtualClock` to move simulated time with `advanceSimulation`. Default: false (as envtest).
   */
  simulate?: ApiServerOptions['simulate'];
}

/** A running test environment. */
export interface TestEnv {
  /** The embedded API server (a new one after each {@link TestEnv.restart}). */
  readonly server: ApiServer;
  /** `http://127.0.0.1:<port>`; the same across restarts. */
  readonly url: string;
  /** Kubeconfig YAML for the server (context `kubeloop`, namespace `default`). */
  readonly kubeconfig: string;
  /**
   * A file holding {@link TestEnv.kubeconfig}, removed by `stop()`: for `loadKubeConfig({ kubeconfigPath })`,
   * `KUBECONFIG` of a child process, or `kubectl --kubeconfig`.
   */
  readonly kubeconfigPath: string;
  /** The HTTP transport the clients of {@link TestEnv.client} share. */
  readonly transport: HttpTransport;
  /**
   * The server's fault injection, to drive faults by hand: drop every watch, fail the next requests
   * with a status (5xx, 429), forget watch history (410 on resume), add latency.
   */
  readonly faults: Faults;
  /**
   * Stops the server and starts it again on the same data directory and port: every watch ends,
   * connections close, clients reconnect to the same URL and find every object. Needs `persistent:
   * true` (or a `server.dataDir`); rejects otherwise.
   */
  restart(): Promise<void>;
  /**
   * Runs a {@link FaultSchedule} (from `faultSchedule()`): each fault is applied, the operator meets it
   * for the fault's pause, then it is cleared and `between` runs. The schedule is remembered, so that
   * {@link TestEnv.converge} can report its seed. A `restart` fault needs `persistent: true`.
   */
  runFaultSchedule(schedule: FaultSchedule, options?: RunFaultScheduleOptions): Promise<void>;
  /**
   * {@link eventually} for the state the operator must reach after faults: calls `check` until it
   * stops throwing and returns its value. At the deadline it rejects with a `ConvergenceError`
   * naming the seed of every schedule run on this environment and listing their faults.
   */
  converge<T>(check: () => T | Promise<T>, options?: EventuallyOptions): Promise<T>;
  /** A typed client for `kind` on this server, over {@link TestEnv.transport}. */
  client<T extends KubeObject>(kind: Kind<T>): Client<T>;
  /** Installs or updates one more CRD and waits until it is served (`ensureCrd`). */
  ensureCrd(crd: CustomResourceDefinition, options?: EnsureCrdOptions): Promise<CustomResourceDefinition>;
  /** Closes the clients' connections, stops the server, removes the kubeconfig file. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts an embedded API server, installs `crds` and creates `namespaces`; resolves once every CRD
 * is served. If any of that fails, what was started is stopped and the error is thrown.
 */
export async function startTestEnv(options: TestEnvOptions = {}): Promise<TestEnv> {
  let dataDir = options.server?.dataDir;
  let ownDataDir: string | undefined;
  if (options.persistent === true && dataDir === undefined) dataDir = ownDataDir = await mkdtemp(join(tmpdir(), 'kubeloop-test-env-data-'));
  const baseOptions: ApiServerOptions = { ...options.server, ...(options.simulate !== undefined && { simulate: options.simulate }) };
  const serverOptions: ApiServerOptions = dataDir !== undefined ? { ...baseOptions, dataDir, fsync: options.server?.fsync ?? (ownDataDir !== undefined ? 'never' : undefined) } : baseOptions;
  let server: ApiServer;
  try {
    server = await startApiServer(serverOptions);
  } catch (error) {
    if (ownDataDir !== undefined) await rm(ownDataDir, { recursive: true, force: true });
    throw error;
  }
  const transport = new HttpTransport({ server: server.url });
  const schedules: FaultSchedule[] = [];
  let dir: string | undefined;
  let restarting: Promise<void> | undefined;
  const cleanUp = async (): Promise<void> => {
    transport.close();
    await restarting?.catch(() => undefined);
    await server.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    if (ownDataDir !== undefined) await rm(ownDataDir, { recursive: true, force: true });
  };
  const restart = async (): Promise<void> => {
    if (dataDir === undefined) throw new Error('restart: the environment keeps its objects in memory only; start it with startTestEnv({ persistent: true })');
    // The same port, so clients (and the kubeconfig) reconnect to the same URL.
    const port = Number(new URL(server.url).port);
    await server.stop();
    server = await startApiServer({ ...serverOptions, port });
  };
  try {
    dir = await mkdtemp(join(tmpdir(), 'kubeloop-test-env-'));
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeOwnerOnly(kubeconfigPath, server.kubeconfig);
    for (const crd of options.crds ?? []) await ensureCrd(transport, crd);
    const namespaces = new Client(NamespaceKind, transport);
    for (const name of options.namespaces ?? []) await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    let stopping: Promise<void> | undefined;
    const env: TestEnv = {
      get server() {
        return server;
      },
      url: server.url,
      kubeconfig: server.kubeconfig,
      kubeconfigPath,
      transport,
      get faults() {
        return server.faults;
      },
      client: (kind) => new Client(kind, transport),
      ensureCrd: (crd, ensureOptions) => ensureCrd(transport, crd, ensureOptions),
      restart: () => {
        if (stopping !== undefined) return Promise.reject(new Error('restart: the environment is stopped'));
        // One restart at a time: a second call waits for the first, then restarts again.
        restarting = (restarting ?? Promise.resolve()).catch(() => undefined).then(restart);
        return restarting;
      },
      runFaultSchedule: (schedule, runOptions) => {
        schedules.push(schedule);
        const target = {
          get faults() {
            return server.faults; // the current server's, also after a restart fault
          },
          restartable: dataDir !== undefined,
          restart: () => env.restart(),
        };
        return runFaultSchedule(target, schedule, runOptions);
      },
      converge: async (check, convergeOptions) => {
        try {
          return await eventually(check, convergeOptions);
        } catch (error) {
          if (convergeOptions?.signal?.aborted === true) throw error;
          const message = error instanceof Error ? error.message.replace(/^eventually: /, 'converge: ') : String(error);
          throw new ConvergenceError(message, [...schedules], error instanceof Error && error.cause !== undefined ? error.cause : error);
        }
      },
      stop: () => (stopping ??= cleanUp()),
    };
    return env;
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
