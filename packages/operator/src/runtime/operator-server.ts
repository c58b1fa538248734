import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Metric } from 'prom-client';
import { InvalidArgumentError } from '../errors.js';
import type { OperatorStatus } from '../status/controller-status.js';
import { renderStatusPage } from '../status/status-page.js';

/**
 * A health or readiness check. Passing: returns (or resolves) `undefined` or `true`. Failing:
 * returns `false`, or throws (the message is shown by `?verbose`).
 */
export type HealthCheck = () => boolean | void | Promise<boolean | void>;

/** Options of {@link OperatorServer}. */
export interface OperatorServerOptions {
  /** TCP port; 0 picks a free one. Default: 9090 (grafana-app-sdk's metrics port). */
  port?: number | undefined;
  /** Interface to bind. Default: '0.0.0.0', so that the kubelet's probes and Prometheus reach a pod; use '127.0.0.1' on a workstation. */
  host?: string | undefined;
  /** Registry served at /metrics. Default: a new `Registry`. */
  registry?: Registry | undefined;
  /** Collectors to register at once, e.g. `operator.prometheusCollectors()`. Default: none. */
  collectors?: readonly Metric[] | undefined;
  /** Also serve prom-client's default process metrics (CPU, memory, event loop lag, GC). Default: true. */
  collectDefaultMetrics?: boolean | undefined;
  /** A check that has not answered within this time fails. Default: 5000. */
  checkTimeoutMs?: number | undefined;
  /**
   * Serve the status page at `/status` (HTML) and `/status.json`: the controllers, their informers and
   * queues, and each object's recent handler calls, from the source `runOperator` sets (see
   * `setStatusSource`). It shows object names and error messages: turn it off (`false`) when the
   * metrics port is reachable by people who should not see them. Default: true.
   */
  statusPage?: boolean | undefined;
}

interface NamedCheck {
  name: string;
  fn: HealthCheck;
}

/** The result of one check in {@link OperatorServer.runChecks}. */
export interface HealthCheckResult {
  name: string;
  ok: boolean;
  /** Skipped through `?exclude=`; counts as passing. */
  excluded: boolean;
  /** Why it failed, when it threw. */
  message?: string | undefined;
}

const CHECK_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * One HTTP server for everything a platform asks of a running operator:
 *
 * - `GET /metrics`: the Prometheus registry (the operator's collectors plus process metrics).
 * - `GET /healthz` (alias `/livez`): liveness; restart me if this fails.
 * - `GET /readyz`: readiness; do not count on me yet (informers syncing, leader unknown).
 * - `GET /status` (and `/status.json`): the status page, see `statusPage` (on by default).
 *
 * Health endpoints answer like the Kubernetes API server: 200 `ok`, or 500 with one
 * `[+]name ok` / `[-]name failed: reason` line per check; `?verbose` lists the checks on
 * success too; `?exclude=name` skips a check; `/healthz/name` runs one check.
 * Every check list starts with `ping`, which always passes.
 */
export class OperatorServer {
  /** The registry served at /metrics. */
  readonly registry: Registry;
  private readonly port: number;
  private readonly host: string;
  private readonly checkTimeoutMs: number;
  private readonly healthChecks: NamedCheck[] = [{ name: 'ping', fn: () => true }];
  private readonly readyChecks: NamedCheck[] = [{ name: 'ping', fn: () => true }];
  private server: Server | undefined;
  private listening: AddressInfo | undefined;
  private readonly statusPage: boolean;
  private statusSource: (() => OperatorStatus) | undefined;

  constructor(options: OperatorServerOptions = {}) {
    this.port = options.port ?? 9090;
    this.host = options.host ?? '0.0.0.0';
    this.checkTimeoutMs = options.checkTimeoutMs ?? 5_000;
    this.statusPage = options.statusPage ?? true;
    if (!Number.isInteger(this.port) || this.port < 0 || this.port > 65535) throw new InvalidArgumentError(`invalid port ${String(options.port)}`);
    this.registry = options.registry ?? new Registry();
    if (options.collectDefaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.registerCollectors(options.collectors ?? []);
  }

  /**
   * Registers collectors with the registry. Registering the same collector again is a no-op; another
   * collector under a name already registered is an error (it used to be skipped silently, hiding a
   * second controller's metrics: register `Operator.prometheusCollectors()`, labelled by controller).
   * @throws InvalidArgumentError naming the metric.
   */
  registerCollectors(collectors: readonly Metric[]): void {
    for (const metric of collectors) {
      const name = (metric as unknown as { name?: string }).name;
      const existing = name === undefined ? undefined : this.registry.getSingleMetric(name);
      if (existing === metric) continue;
      if (existing !== undefined) {
        throw new InvalidArgumentError(`a different metric named ${String(name)} is already registered: give each set its own metrics namespace, or register Operator.prometheusCollectors() (one per name, labelled by controller)`);
      }
      this.registry.registerMetric(metric);
    }
  }

  /** Where `/status` reads from (`runOperator` sets the operator's `status()`); replaces the previous one. */
  setStatusSource(source: () => OperatorStatus): void {
    this.statusSource = source;
  }

  /** Adds a liveness check (served by /healthz and /livez). Names are DNS labels and unique. */
  addHealthCheck(name: string, check: HealthCheck): void {
    addCheck(this.healthChecks, name, check);
  }

  /** Adds a readiness check (served by /readyz). Names are DNS labels and unique. */
  addReadyCheck(name: string, check: HealthCheck): void {
    addCheck(this.readyChecks, name, check);
  }

  /** Starts listening; resolves with the bound address. Idempotent. */
  async start(): Promise<AddressInfo> {
    if (this.listening) return this.listening;
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
      });
    });
    // Probes and scrapes are short; never let an idle keep-alive connection hold up stop().
    server.keepAliveTimeout = 5_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.listening = server.address() as AddressInfo;
    return this.listening;
  }

  /** True between `start()` and `stop()`. */
  isListening(): boolean {
    return this.listening !== undefined;
  }

  /** The base URL, e.g. `http://127.0.0.1:9090` (a wildcard bind is shown as 127.0.0.1). Throws before `start()`. */
  get url(): string {
    if (!this.listening) throw new InvalidArgumentError('OperatorServer is not listening; call start() first');
    const { address, port, family } = this.listening;
    const host = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : family === 'IPv6' ? `[${address}]` : address;
    return `http://${host}:${port}`;
  }

  /** Stops listening and closes open connections. Idempotent. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.listening = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Runs a check list as /healthz or /readyz would; useful for logs and tests. */
  async runChecks(kind: 'healthz' | 'readyz', exclude: readonly string[] = []): Promise<{ ok: boolean; checks: HealthCheckResult[] }> {
    const list = kind === 'readyz' ? this.readyChecks : this.healthChecks;
    const checks = await Promise.all(
      list.map((c) => (exclude.includes(c.name) ? Promise.resolve({ name: c.name, ok: true, excluded: true }) : this.runCheck(c))),
    );
    return { ok: checks.every((c) => c.ok), checks };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
      return;
    }
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/metrics') {
      const body = await this.registry.metrics();
      send(res, 200, body, { 'content-type': this.registry.contentType });
      return;
    }
    if (this.statusPage && (path === '/status' || path === '/status.json')) {
      this.sendStatus(res, path, url.searchParams);
      return;
    }
    const match = /^\/(healthz|livez|readyz)(?:\/([^/]+))?$/.exec(path);
    if (!match) {
      send(res, 404, `not found: try /metrics, /healthz, /livez or /readyz${this.statusPage ? ' or /status' : ''}\n`);
      return;
    }
    const kind = match[1] === 'readyz' ? 'readyz' : 'healthz';
    const label = match[1] ?? kind;
    const only = match[2];
    if (only !== undefined) {
      const check = (kind === 'readyz' ? this.readyChecks : this.healthChecks).find((c) => c.name === only);
      if (!check) {
        send(res, 404, `no such check: ${only}\n`);
        return;
      }
      const outcome = await this.runCheck(check);
      send(res, outcome.ok ? 200 : 500, outcome.ok ? 'ok' : `internal server error: ${outcome.message ?? 'check failed'}\n`);
      return;
    }
    const { ok, checks } = await this.runChecks(kind, url.searchParams.getAll('exclude'));
    const lines = checks.map((c) => (c.excluded ? `[+]${c.name} excluded: ok` : c.ok ? `[+]${c.name} ok` : `[-]${c.name} failed: ${c.message ?? 'check failed'}`));
    if (!ok) send(res, 500, `${lines.join('\n')}\n${label} check failed\n`);
    else if (url.searchParams.has('verbose')) send(res, 200, `${lines.join('\n')}\n${label} check passed\n`);
    else send(res, 200, 'ok');
  }

  /** `/status` (HTML; `?object=` filters by `kind/namespace/name`, `?refresh=` reloads every n seconds) or `/status.json`. */
  private sendStatus(res: ServerResponse, path: string, query: URLSearchParams): void {
    const status = this.statusSource?.() ?? { controllers: [] };
    if (path === '/status.json') {
      send(res, 200, JSON.stringify(status), { 'content-type': 'application/json' });
      return;
    }
    const refresh = Number(query.get('refresh') ?? 0);
    const html = renderStatusPage(status, { filter: query.get('object') ?? undefined, refreshSeconds: Number.isFinite(refresh) ? Math.min(Math.max(refresh, 0), 3600) : 0 });
    send(res, 200, html, { 'content-type': 'text/html; charset=utf-8', 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" });
  }

  private async runCheck(check: NamedCheck): Promise<HealthCheckResult> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${this.checkTimeoutMs} ms`)), this.checkTimeoutMs);
      });
      const result = await Promise.race([Promise.resolve().then(check.fn), timeout]);
      return result === false ? { name: check.name, ok: false, excluded: false } : { name: check.name, ok: true, excluded: false };
    } catch (error) {
      return { name: check.name, ok: false, excluded: false, message: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
    }
  }
}

function addCheck(list: NamedCheck[], name: string, fn: HealthCheck): void {
  if (!CHECK_NAME.test(name)) throw new InvalidArgumentError(`invalid check name "${name}": use lower-case letters, digits and '-'`);
  if (typeof fn !== 'function') throw new InvalidArgumentError('check cannot be nil');
  if (list.some((c) => c.name === name)) throw new InvalidArgumentError(`check "${name}" already added`);
  list.push({ name, fn });
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
