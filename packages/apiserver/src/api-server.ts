/**
 * `startApiServer()`: an embedded Kubernetes API server over real HTTP, for development, tests
 * and demos. kubectl and @kubernetes/client-node work against it unmodified.
 *
 * Flow at start: open and replay the write-ahead log (with `dataDir`), rebuild the objects and
 * the CRD-defined types, continue the resourceVersion past the highest replayed one, create the
 * `default` and `kube-system` namespaces if missing, start the garbage collector and the namespace
 * deleter (which finish work a stop cut short), then listen.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { writeOwnerOnly } from './owner-only-file.js';
import { realClock } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { configMapType, eventType, leaseType, namespaceType, secretType } from './types/builtin-resources.js';
import { builtinKinds } from './builtin/builtin-kind-table.js';
import { modelResourceType } from './builtin/model-resource-type.js';
import { crdType } from './types/crd-resource.js';
import { AllowedHosts, exposureRisk } from './http/browser-guard.js';
import { FaultInjector } from './http/faults.js';
import { GarbageCollector } from './objects/garbage-collector.js';
import { NamespaceDeleter } from './objects/namespace-deleter.js';
import type { Faults } from './http/faults.js';
import { BearerTokenCheck } from './http/bearer-token.js';
import { kubeconfigFor } from './kubeconfig.js';
import { makeServingCertificates } from './http/self-signed-certificates.js';
import { tooManyRequests, unauthorized } from './http/status-error.js';
import { ConnectionGuard } from './http/connection-guard.js';
import type { ConnectionStats } from './http/connection-guard.js';
import { immortalNamespaces } from './objects/namespace-contents.js';
import { ObjectService } from './objects/object-service.js';
import { ObjectStore, counterLogKey, parseLogKey } from './storage/object-store.js';
import { OpenApiDocuments } from './http/openapi.js';
import { DataDirLock, WriteAheadLog } from './persistence/index.js';
import type { WalRecord, WriteAheadLogOpenResult } from './persistence/index.js';
import { RequestBodyParser } from './http/request-body-parser.js';
import { OffLoopWorker } from './worker/off-loop-worker.js';
import { RequestHandler, statusBody } from './http/request-handler.js';
import { ResourceRegistry } from './types/resource-registry.js';
import { storeKeyOf } from './types/resource-type.js';
import { WatchHub } from './watch/watch-hub.js';
import type { ShardCounterValues } from './watch/shard-counters.js';
import { resolveSimulation } from './simulation/simulate-options.js';
import type { SimulateOptions } from './simulation/simulate-options.js';
import { Simulation } from './simulation/simulation.js';
import { podGracefulDeletion } from './simulation/kubelet/graceful-deletion.js';
import { simulatedNodeNames } from './simulation/kubelet/simulated-cluster.js';

/** Options of {@link startApiServer}. */
export interface ApiServerOptions {
  /** TCP port. Default 0 (any free port). */
  port?: number;
  /**
   * Interface to bind. Default `127.0.0.1`. Binding anything else (`0.0.0.0`, a LAN address)
   * exposes the server to other machines: without `token` (no authentication), or with `token`
   * but without `tls` (the token in clear text), a warning is written to stderr (`process.emitWarning`).
   */
  host?: string;
  /**
   * Host names, besides IP addresses, `localhost` and `host`, that requests may be addressed to
   * (the `Host` header); others are 403, which keeps DNS-rebinding web pages out. Default none.
   */
  allowedHosts?: readonly string[];
  /**
   * Directory of the write-ahead log. Default: none (memory only). The server locks it (file
   * `lock`): a second server on the same directory fails to start with a `DataDirLockedError`.
   */
  dataDir?: string;
  /** Changes kept per resource type for watch resume; older resumes get 410. Default 10000. */
  historyWindow?: number;
  /**
   * Bytes of object JSON (the new and the previous state of each change) that the watch history
   * of all types together may keep; beyond it the oldest changes are forgotten and resumes from
   * before them get 410. Default 64 MiB.
   */
  historyBytes?: number;
  /** Largest accepted request body in bytes; larger is 413. Default 3 MiB (as kube-apiserver). */
  maxBodyBytes?: number;
  /** With `dataDir`: when a write is durable before it is answered (see README). Default `'always'`. */
  fsync?: 'always' | 'batch' | 'never';
  /**
   * With `dataDir`: the log is compacted (rewritten as the live objects) once it is at least this
   * large and at least twice the size of those objects. Default 64 MiB.
   */
  compactAfterBytes?: number;
  /**
   * With `dataDir`: when the log has a bad record with intact records after it (damage, not a torn
   * tail), keep the records before it, drop the rest and report what was dropped to `logger`,
   * instead of refusing to start with a `WalCorruptionError`. Default false.
   */
  repair?: boolean;
  /**
   * Bytes of live watch events queued for one watch connection and not yet taken by its socket
   * beyond which the watcher is too slow: its stream ends cleanly after what is queued (the client
   * re-watches from the last resourceVersion it saw), as kube-apiserver's watch cache closes
   * watchers that do not keep up. (Lists, tables and a watch's initial events are written as the
   * client reads them, one chunk at a time: they do not queue up.) Default 64 MiB.
   */
  maxWatchBufferBytes?: number;
  /**
   * Milliseconds a connection may have response bytes waiting while its client takes none of them;
   * then the connection is cut (reset), counted in {@link ApiServer.connectionStats} and logged.
   * Covers every response: lists, watches, tables, single objects. kube-apiserver kills the
   * connection of a request still writing when `--request-timeout` (default 1m0s) passes, and
   * closes watchers that do not keep up. Default 60000 (60 s).
   */
  writeTimeoutMs?: number;
  /**
   * Connections served at once. Requests on a connection accepted beyond it are answered 429
   * TooManyRequests with `Retry-After: 1` and the connection is closed; connections already open
   * keep working. kube-apiserver has no connection cap (it limits requests in flight, with this
   * same 429). Default 10000.
   */
  maxConnections?: number;
  /**
   * Watches open at once; a watch request beyond it is 429 TooManyRequests with `Retry-After: 1`,
   * while open watches, reads and writes go on. kube-apiserver counts long-running requests such
   * as watches apart from `--max-requests-inflight` (400) and `--max-mutating-requests-inflight`
   * (200); this is that separate count, capped. Default 8000 (kept below `maxConnections` so that
   * other requests still find a connection).
   */
  maxWatches?: number;
  /** Receives diagnostic lines (log corruption found at start, a repair, a failed compaction, unexpected handler errors). Default: discard. */
  logger?: (line: string) => void;
  /**
   * Serve KEP-5866 sharded list and watch: the `shardSelector` parameter of LIST, WATCH and
   * DELETE of a collection, echoed in the list's `metadata.shardInfo`. `false` behaves as a
   * server without the feature (kube-apiserver with the `ShardedListAndWatch` gate off, or older):
   * the parameter is ignored and no `shardInfo` is sent, so clients' fallback can be tested.
   * Default true.
   */
  shardedListAndWatch?: boolean;
  /**
   * Serve HTTPS with a self-signed CA and serving certificate made at start (for 127.0.0.1,
   * localhost, `host` and `allowedHosts`); the kubeconfig carries the CA. Default false (plain HTTP).
   */
  tls?: boolean;
  /** Require `Authorization: Bearer <token>` (401 otherwise); the kubeconfig carries it. Default: none (no authentication). */
  token?: string;
  /**
   * Simulates the cluster around an operator: workload controllers (Deployments make ReplicaSets
   * make Pods, Jobs, StatefulSets, DaemonSets, CronJobs, EndpointSlices, every namespace's
   * `default` ServiceAccount and `kube-root-ca.crt`) and a kubelet running Pods on simulated Nodes,
   * on `simulate.clock`. `true` turns on everything with its defaults (see {@link SimulateOptions}).
   * Default: false, as envtest: the server stores, validates and collects garbage, and no Pod ever runs.
   */
  simulate?: boolean | SimulateOptions;
}

/** A running server. */
export interface ApiServer {
  /** `http://host:port`, or `https://host:port` with `tls`. */
  readonly url: string;
  /** Kubeconfig YAML for this server (plain HTTP with `insecure-skip-tls-verify: true`, or HTTPS with the CA; the token or a dummy one). */
  readonly kubeconfig: string;
  /** With `tls`: the CA certificate (PEM) clients trust. */
  readonly caCertificate: string | undefined;
  /** Writes {@link ApiServer.kubeconfig} to a file. */
  writeKubeconfig(path: string): Promise<void>;
  /** Fault injection. */
  readonly faults: Faults;
  /** The current (last assigned) resourceVersion. */
  resourceVersion(): string;
  /** The cluster simulation when `simulate` is on; undefined otherwise. */
  readonly simulation: ServerSimulation | undefined;
  /** Open connections and watches, and what the limits refused or cut (see `writeTimeoutMs`, `maxConnections`, `maxWatches`). */
  connectionStats(): ApiServerConnectionStats;
  /** Ends every watch, closes connections and the log. Idempotent. */
  stop(): Promise<void>;
}

/** A running cluster simulation (see {@link ApiServerOptions.simulate}). */
export interface ServerSimulation {
  /** The names of the simulated controllers (`deployment`, `kubelet`...). */
  readonly controllers: readonly string[];
  /**
   * Resolves once no simulated controller has work queued or in progress: what happens next waits for
   * a client's write or a timer on the simulation's clock. With a `VirtualClock`, a test moves time
   * by `clock.advance(ms)` and then awaits this.
   */
  whenIdle(): Promise<void>;
}

/** What {@link ApiServer.connectionStats} reports. */
export interface ApiServerConnectionStats extends ConnectionStats {
  /** Watches open now. */
  readonly watches: number;
  /** Watch requests answered 429 because `maxWatches` were open. */
  readonly refusedWatches: number;
  /** Requests whose clients went away before the server read them (an upload cut mid-body). */
  readonly abortedRequests: number;
  /** KEP-5866 counters with kube-apiserver's metric names (this server has no `/metrics`). */
  readonly shardCounters: ShardCounterValues;
}

const defaultMaxBodyBytes = 3 * 1024 * 1024;
const defaultWriteTimeoutMs = 60_000;
const defaultMaxConnections = 10_000;
const defaultMaxWatches = 8_000;

/** `value` when a positive integer, else a RangeError naming the option. */
function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
const defaultHistoryBytes = 64 * 1024 * 1024;

/** The state rebuilt from a write-ahead log. */
interface Replayed {
  readonly objects: Map<string, KubeObject>;
  readonly maxRv: number;
}

function replay(records: readonly WalRecord[]): Replayed {
  const objects = new Map<string, KubeObject>();
  let maxRv = 0;
  for (const record of records) {
    if (record.rv > maxRv) maxRv = record.rv;
    if (record.key === counterLogKey) continue;
    if (record.op === 'put') objects.set(record.key, record.object as KubeObject);
    else objects.delete(record.key);
  }
  return { objects, maxRv };
}

const emptyReplay: Replayed = { objects: new Map(), maxRv: 0 };

/** Locks the data directory, opens and replays its log, and reports any damage cut off. */
async function openDataDir(dataDir: string, options: ApiServerOptions, logger: (line: string) => void): Promise<{ log: WriteAheadLog; replayed: Replayed; lock: DataDirLock }> {
  const lock = await DataDirLock.acquire(dataDir);
  let opened: WriteAheadLogOpenResult;
  try {
    opened = await WriteAheadLog.open(dataDir, {
      fsync: options.fsync ?? 'always',
      ...(options.compactAfterBytes !== undefined && { compactAfterBytes: options.compactAfterBytes }),
      repair: options.repair ?? false,
    });
  } catch (err) {
    await lock.release();
    throw err;
  }
  const damage = opened.corruption;
  if (damage?.kind === 'torn-tail') {
    logger(
      `kubeloop-apiserver: write-ahead log in ${dataDir} ends in a corrupt or torn record at byte ${damage.offset} (${damage.reason}); ` +
        `kept the ${opened.records.length} valid records before it, saved the rest to ${damage.savedTo}`,
    );
  } else if (damage?.kind === 'repaired') {
    logger(
      `kubeloop-apiserver: repaired the write-ahead log in ${dataDir}: record ${damage.recordIndex + 1} at byte ${damage.offset} is corrupt (${damage.reason}); ` +
        `kept the ${opened.records.length} records before it, dropped ${damage.droppedBytes} bytes holding ${damage.droppedRecords} intact records ` +
        `(resourceVersions up to ${damage.droppedMaxRv}; new writes continue after it), saved to ${damage.savedTo}`,
    );
  }
  const replayed = replay(opened.records);
  // Clients may have seen the dropped resourceVersions: never hand them out again.
  const maxRv = Math.max(replayed.maxRv, damage?.droppedMaxRv ?? 0);
  return { log: opened.log, replayed: { ...replayed, maxRv }, lock };
}

/** Starts a server; resolves once it listens. */
export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const logger = options.logger ?? ((): void => undefined);
  const historyWindow = options.historyWindow ?? 10_000;
  if (!Number.isInteger(historyWindow) || historyWindow < 1) throw new RangeError(`historyWindow must be a positive integer, got ${historyWindow}`);
  const historyBytes = options.historyBytes ?? defaultHistoryBytes;
  if (!Number.isInteger(historyBytes) || historyBytes < 1) throw new RangeError(`historyBytes must be a positive integer, got ${historyBytes}`);
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const maxWatchBufferBytes = options.maxWatchBufferBytes;
  if (maxWatchBufferBytes !== undefined && !(Number.isInteger(maxWatchBufferBytes) && maxWatchBufferBytes > 0)) {
    throw new RangeError(`maxWatchBufferBytes must be a positive integer, got ${maxWatchBufferBytes}`);
  }
  const host = options.host ?? '127.0.0.1';
  const writeTimeoutMs = positiveInteger('writeTimeoutMs', options.writeTimeoutMs ?? defaultWriteTimeoutMs);
  const maxConnections = positiveInteger('maxConnections', options.maxConnections ?? defaultMaxConnections);
  const maxWatches = positiveInteger('maxWatches', options.maxWatches ?? defaultMaxWatches);
  const registry = new ResourceRegistry();
  for (const type of [namespaceType, configMapType, secretType, eventType, leaseType]) registry.add(type);
  for (const kind of builtinKinds) registry.add(modelResourceType(kind));
  registry.add(crdType);

  const { log, replayed, lock } = options.dataDir !== undefined ? await openDataDir(options.dataDir, options, logger) : { replayed: emptyReplay };

  const store = new ObjectStore({ historyWindow, historyBytes, initialResourceVersion: replayed.maxRv, logger });
  for (const type of registry.all()) store.ensureTable(storeKeyOf(type));
  const hub = new WatchHub(() => store.resourceVersion, { maxBufferedBytes: maxWatchBufferBytes });
  // The listener and type hooks first run on a write, after `collector` below exists.
  store.setListener((storeKey, event) => {
    hub.dispatch(storeKey, event);
    collector.observe(storeKey, event);
    namespaceDeleter.observe(storeKey, event);
    simulation?.observe(storeKey, event);
  });
  // Large YAML bodies and large patches: computed here, off the event loop.
  const offLoop = new OffLoopWorker({ logger });
  const simulationSettings = resolveSimulation(options.simulate);
  // Only with the simulated kubelet are Pods deleted gracefully: without it, every delete is at once (as envtest).
  const kubelet = simulationSettings?.kubelet;
  const gracefulDeletion = kubelet && podGracefulDeletion(simulationSettings.clock ?? realClock, simulatedNodeNames(kubelet.nodes));
  const service = new ObjectService(registry, store, {
    typeChanged(type, previous) {
      // Watches of a type whose scope or versions changed are ended; clients re-watch the new shape.
      if (previous && (previous.namespaced !== type.namespaced || previous.versions.join() !== type.versions.join())) hub.endType(storeKeyOf(type));
      collector.typesChanged();
    },
    typeRemoved(storeKey) {
      hub.endType(storeKey);
    },
  }, { gracefulDeletion, offLoop });
  const collector = new GarbageCollector({ registry, store, writes: service, logger });
  const namespaceDeleter = new NamespaceDeleter({ registry, store, writes: service, logger });
  const certificates = options.tls ? makeServingCertificates({ hosts: [host, ...(options.allowedHosts ?? [])] }) : undefined;
  const simulation = simulationSettings
    ? new Simulation({ registry, store, service, settings: simulationSettings, logger, caCertificate: (certificates ?? makeServingCertificates()).caCertificate })
    : undefined;

  // CRDs first, so that their objects find their types.
  const crdStoreKey = storeKeyOf(crdType);
  const entries = [...replayed.objects].map(([key, object]) => ({ parsed: parseLogKey(key), object }));
  for (const { parsed, object } of entries) if (parsed?.storeKey === crdStoreKey) store.load(parsed.storeKey, parsed.key, object);
  service.registerStoredCrds();
  let dropped = 0;
  for (const { parsed, object } of entries) {
    if (!parsed || parsed.storeKey === crdStoreKey) continue;
    if (!registry.byStoreKey(parsed.storeKey)) {
      dropped++;
      continue;
    }
    store.load(parsed.storeKey, parsed.key, object);
  }
  if (dropped > 0) logger(`kubeloop-apiserver: dropped ${dropped} replayed objects whose type is no longer served`);
  for (const type of registry.all()) service.applyReadDefaults(type);
  if (log) store.attachLog(log);
  // After the replay: dependents left dangling by a stop are collected now, through the log.
  collector.start();
  // Namespaces whose deletion a stop or a crash cut short are finished now.
  namespaceDeleter.start();

  const abandon = async (): Promise<void> => {
    await simulation?.stop();
    await namespaceDeleter.stop();
    await collector.stop();
    await store.closeLog();
    await lock?.release();
  };
  try {
    for (const name of immortalNamespaces) {
      if (!store.get(storeKeyOf(namespaceType), name)) {
        await service.create({ type: namespaceType, version: 'v1', namespace: undefined }, { metadata: { name } }, { dryRun: false, fieldValidation: 'Ignore' });
      }
    }
  } catch (err) {
    // A refused write (disk full) must not leave the data directory locked by a server that never ran.
    await abandon();
    throw err;
  }

  let address = '';
  const faults = new FaultInjector({
    dropWatches: (mode) => hub.dropAll(mode),
    forgetHistory: () => store.forgetHistory(),
    injectWatchLines: (lines, resource) => hub.injectLines(lines, resource),
    workloads: kubelet && simulation?.workloadFaults,
  });
  const bodyParser = new RequestBodyParser({ worker: offLoop });
  const handler = new RequestHandler({
    registry,
    store,
    hub,
    service,
    openapi: new OpenApiDocuments(registry),
    faults,
    maxBodyBytes,
    maxWatches,
    bodyParser,
    allowedHosts: new AllowedHosts([host, ...(options.allowedHosts ?? [])]),
    scheme: options.tls ? 'https' : 'http',
    serverAddress: () => address,
    logger,
    listFeatures: { shardedListAndWatch: options.shardedListAndWatch ?? true },
  });
  const tokenCheck = options.token !== undefined ? new BearerTokenCheck(options.token) : undefined;
  const guard = new ConnectionGuard({ maxConnections, writeTimeoutMs, logger });
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (guard.refuses(req.socket)) {
      const refused = tooManyRequests(`the server serves at most ${maxConnections} connections at once`);
      const body = JSON.stringify(refused.status);
      req.resume();
      res.shouldKeepAlive = false;
      res.writeHead(429, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Retry-After': String(refused.retryAfterSeconds) });
      res.end(body);
      return;
    }
    if (tokenCheck && !tokenCheck.allows(req)) {
      const body = statusBody(unauthorized().status);
      req.resume();
      res.writeHead(401, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    handler.handle(req, res);
  };
  const server = certificates ? createTlsServer({ key: certificates.privateKey, cert: certificates.certificate }, listener) : createServer(listener);
  server.keepAliveTimeout = 30_000;
  // A TLS server's responses go through the sockets of its secure connections.
  guard.attach(server, certificates ? 'secureConnection' : 'connection');
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await abandon();
    throw err;
  }
  const risk = exposureRisk(host, { token: options.token !== undefined, tls: certificates !== undefined });
  if (risk !== undefined) {
    process.emitWarning(`kubeloop-apiserver listens on ${host}, which other machines can reach: ${risk}`, { code: 'KUBELOOP_APISERVER_EXPOSED' });
  }
  const port = (server.address() as AddressInfo).port;
  address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const url = `${certificates ? 'https' : 'http'}://${address}`;
  hub.start();
  simulation?.start();
  const kubeconfig = kubeconfigFor(url, {
    ...(certificates && { caCertificate: certificates.caCertificate }),
    ...(options.token !== undefined && { token: options.token }),
  });

  let stopping: Promise<void> | undefined;
  return {
    url,
    kubeconfig,
    caCertificate: certificates?.caCertificate,
    faults,
    writeKubeconfig: (path) => writeOwnerOnly(path, kubeconfig),
    resourceVersion: () => String(store.resourceVersion),
    simulation: simulation && { controllers: simulation.controllers.map((controller) => controller.name), whenIdle: () => simulation.whenIdle() },
    connectionStats: () => ({ ...guard.stats(), watches: hub.size, refusedWatches: handler.refusedWatches, abortedRequests: handler.aborted.count, shardCounters: hub.shardCounters.values() }),
    stop() {
      stopping ??= (async () => {
        hub.stop();
        guard.stop();
        await simulation?.stop();
        await namespaceDeleter.stop();
        await collector.stop();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await offLoop.stop();
        await store.closeLog();
        await lock?.release();
      })();
      return stopping;
    },
  };
}
