/**
 * `kubeloop dev`'s loop: a cluster (embedded or real), the project's CRDs installed, the operator compiled
 * and run as a child process, restarted when a source file changes (type-checking runs beside the restart,
 * not in front of it), and a live status read from the operator's own `/status.json`.
 */
import { mkdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { CustomResourceDefinition } from '@kubeloop/resource';
import type { ProjectConfig } from '../project/project-config.js';
import { projectCrds } from '../project/generated-files.js';
import { createSourceCompiler } from './compile-sources.js';
import type { SourceCompiler } from './compile-sources.js';
import { startDevCluster } from './dev-cluster.js';
import type { DevCluster } from './dev-cluster.js';
import { freePort } from './free-port.js';
import { LiveStatus } from './live-status.js';
import type { StatusOutput } from './live-status.js';
import { OperatorProcess } from './operator-process.js';
import { writePreloadModule } from './preload-module.js';
import { SourceWatcher } from './source-watcher.js';
import type { ChangeBatch } from './source-watcher.js';
import { summarize, summaryLine } from './status-summary.js';
import type { StatusJson } from './status-summary.js';
import { TypeChecker } from './type-check.js';
import type { TypeCheckResult } from './type-check.js';

/** Options of {@link DevLoop}. */
export interface DevLoopOptions {
  readonly config: ProjectConfig;
  /** Run against this real cluster instead of the embedded API server. Default: none (embedded). */
  readonly kubeconfig?: string | undefined;
  /** The embedded API server's port. Default: 0 (any free port). */
  readonly apiPort?: number | undefined;
  readonly output: StatusOutput;
  /** How often the live status is read from the operator. Default: 500 ms. */
  readonly statusIntervalMs?: number | undefined;
  /** How long the operator may take to be ready (`/readyz`) after a start. Default: 60000 ms. */
  readonly readyTimeoutMs?: number | undefined;
  /** Told when the operator is ready, after the first start and after each restart (for the bench and tests). Default: nothing. */
  readonly onReady?: ((event: ReadyEvent) => void) | undefined;
}

/** The operator answered `/readyz` after a start. */
export interface ReadyEvent {
  /** 0 for the first start, n for the n-th restart. */
  readonly restart: number;
  /** From the end of the compile to ready. */
  readonly afterCompileMs: number;
  /** From the change being seen to ready (restarts only). */
  readonly afterChangeMs?: number | undefined;
  readonly compileMs: number;
  /** Stopping the previous operator (0 on the first start). */
  readonly stopMs: number;
}

/** What the loop prints once at start, also for a caller to read. */
export interface DevEndpoints {
  readonly kubeconfig: string;
  readonly server: string;
  readonly metricsUrl: string;
  readonly statusUrl: string;
}

export class DevLoop {
  private readonly root: string;
  private readonly stateDir: string;
  private readonly status: LiveStatus;
  private cluster: DevCluster | undefined;
  private compiler: SourceCompiler | undefined;
  private operator: OperatorProcess | undefined;
  private watcher: SourceWatcher | undefined;
  private typeChecker: TypeChecker | undefined;
  private poll: NodeJS.Timeout | undefined;
  private types = 'types: checking';
  private state = 'starting';
  private restarts = 0;
  private busy: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: DevLoopOptions) {
    this.root = options.config.root;
    this.stateDir = join(this.root, '.kubeloop');
    this.status = new LiveStatus(options.output);
  }

  /** Starts everything; resolves with the endpoints once the operator was started (ready or not). */
  async start(): Promise<DevEndpoints> {
    const { style } = this.options.output;
    await mkdir(this.stateDir, { recursive: true });
    // The operator's process starts first, loading its libraries while the cluster starts and the sources compile.
    const kubeconfig = this.options.kubeconfig !== undefined ? resolve(this.root, this.options.kubeconfig) : join(this.stateDir, 'kubeconfig');
    const preload = join(this.stateDir, 'preload.js');
    await writePreloadModule(this.root, preload);
    const operator = new OperatorProcess({
      main: join(this.stateDir, 'build/main.js'),
      preload,
      cwd: this.root,
      kubeconfig,
      metricsPort: await freePort(),
      logFile: join(this.stateDir, 'operator.log'),
      onExit: (code, tail) => this.operatorExited(code, tail),
    });
    operator.prepare();
    this.operator = operator;
    const [cluster, compiler, crds] = await Promise.all([
      startDevCluster({ root: this.root, stateDir: this.stateDir, kubeconfig: this.options.kubeconfig, port: this.options.apiPort }),
      createSourceCompiler(this.root, join(this.root, 'src'), join(this.stateDir, 'build')),
      projectCrds(this.options.config),
    ]);
    this.cluster = cluster;
    this.compiler = compiler;
    await cluster.installCrds(crds);
    const endpoints: DevEndpoints = { kubeconfig: cluster.kubeconfig, server: cluster.server, metricsUrl: `${operator.url}/metrics`, statusUrl: `${operator.url}/status` };
    const where = cluster.embedded ? `embedded API server ${cluster.server} (data in ${relative(this.root, join(this.stateDir, 'data'))}/)` : `cluster ${cluster.server}`;
    this.status.message(`kubeloop dev: ${where}, ${crds.length} CRD${crds.length === 1 ? '' : 's'} installed`);
    this.status.message(style.bold(`  export KUBECONFIG=${cluster.kubeconfig}`));
    this.status.message(`  metrics: ${endpoints.metricsUrl}`);
    this.status.message(`  status:  ${endpoints.statusUrl}`);
    this.status.message(`  operator log: ${relative(this.root, join(this.stateDir, 'operator.log'))}`);

    this.typeChecker = new TypeChecker(this.root, (result) => this.typesChecked(result));
    this.watcher = new SourceWatcher(this.root, ['src', this.options.config.schemas, this.options.config.crds], (batch) => this.changed(batch));
    this.watcher.start();
    await this.run(this.compileAndStart(undefined));
    this.poll = setInterval(() => void this.refreshStatus(), this.options.statusIntervalMs ?? 500);
    return endpoints;
  }

  /** Stops the operator (gracefully), the type-check, the watcher and the cluster; idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.poll);
    this.watcher?.stop();
    this.typeChecker?.stop();
    await this.busy.catch(() => undefined);
    this.operator?.dropSpare();
    await this.operator?.stop();
    await this.cluster?.stop();
    this.status.finish();
  }

  /** Kills the operator at once (a second Ctrl-C, or our own exit). */
  killNow(): void {
    this.typeChecker?.stop();
    this.operator?.killNow();
  }

  /** Runs `work` after whatever runs now: restarts never overlap. */
  private run(work: Promise<void> | (() => Promise<void>)): Promise<void> {
    const next = this.busy.then(typeof work === 'function' ? work : () => work);
    this.busy = next.catch((error: unknown) => this.status.message(`kubeloop dev: ${error instanceof Error ? error.message : String(error)}`));
    return this.busy;
  }

  private changed(batch: ChangeBatch): void {
    if (this.stopped) return;
    const seenAt = performance.now();
    const { schemas, crds } = this.options.config;
    const crdsChanged = batch.some((file) => file.startsWith(`${schemas}/`) || file.startsWith(`${crds}/`));
    const sourcesChanged = batch.some((file) => file.startsWith('src/'));
    if (crdsChanged) void this.run(() => this.reinstallCrds());
    if (sourcesChanged) void this.run(() => this.compileAndStart(seenAt));
  }

  private async reinstallCrds(): Promise<void> {
    let crds: CustomResourceDefinition[];
    try {
      crds = await projectCrds(this.options.config);
    } catch (error) {
      this.status.message(this.options.output.style.red(`CRDs not updated: ${error instanceof Error ? error.message : String(error)}`));
      return;
    }
    await this.cluster?.installCrds(crds);
    this.status.message(`CRDs updated (${crds.length})`);
  }

  /**
   * Compiles, and (when it compiled) stops the running operator and starts the new one; then prepares the
   * next process and type-checks, beside the running operator: on two cores, both started with the
   * restart would slow it down.
   */
  private async compileAndStart(changeSeenAt: number | undefined): Promise<void> {
    this.typeChecker?.stop();
    try {
      await this.restartOperator(changeSeenAt);
    } finally {
      if (!this.stopped) {
        this.operator?.prepare();
        this.typeChecker?.start();
      }
    }
  }

  private async restartOperator(changeSeenAt: number | undefined): Promise<void> {
    const compiler = this.compiler;
    const operator = this.operator;
    if (compiler === undefined || operator === undefined || this.stopped) return;
    const result = await compiler.compile();
    const { style } = this.options.output;
    if (!result.ok) {
      this.state = 'compile error';
      this.status.message(style.red(`compile failed (the operator keeps running the previous build): ${result.error ?? ''}`));
      return;
    }
    const compiledAt = performance.now();
    const restart = changeSeenAt === undefined ? 0 : ++this.restarts;
    this.state = restart === 0 ? 'starting' : 'restarting';
    await operator.stop();
    const stopMs = performance.now() - compiledAt;
    if (this.stopped) return;
    operator.start();
    const ready = await operator.waitReady(this.options.readyTimeoutMs ?? 60_000);
    if (!ready) {
      if (operator.running) this.status.message(style.yellow('the operator did not become ready in time (see its log)'));
      return;
    }
    const now = performance.now();
    const event: ReadyEvent = { restart, afterCompileMs: now - compiledAt, afterChangeMs: changeSeenAt === undefined ? undefined : now - changeSeenAt, compileMs: result.ms, stopMs };
    this.state = 'running';
    const how = `compiled ${result.files} files in ${Math.round(result.ms)} ms with ${compiler.name}${restart === 0 ? '' : `, previous one stopped in ${Math.round(stopMs)} ms`}`;
    this.status.message(
      style.green(restart === 0 ? `operator ready in ${Math.round(event.afterCompileMs)} ms (${how})` : `operator restarted, ready ${Math.round(event.afterChangeMs ?? 0)} ms after the change (${how})`),
    );
    this.options.onReady?.(event);
    await this.refreshStatus();
  }

  private operatorExited(code: number | null, tail: string): void {
    this.state = `exited (${code ?? 'signal'})`;
    const lastLines = tail.trimEnd().split('\n').slice(-5).join('\n  ');
    this.status.message(this.options.output.style.red(`operator exited with code ${code ?? 'none'}; it restarts on the next change. Last output:\n  ${lastLines}`));
    this.drawStatus(undefined);
  }

  private typesChecked(result: TypeCheckResult): void {
    this.types = result.errors === 0 ? 'types ok' : `types: ${result.errors} error${result.errors === 1 ? '' : 's'}`;
    if (result.errors > 0 && result.first !== undefined) this.status.message(this.options.output.style.yellow(`type error: ${result.first}`));
    this.drawStatus(undefined);
  }

  private lastSummary: ReturnType<typeof summarize> | undefined;

  private async refreshStatus(): Promise<void> {
    const operator = this.operator;
    if (operator === undefined || !operator.running || this.stopped) return;
    try {
      const res = await fetch(`${operator.url}/status.json`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) this.lastSummary = summarize((await res.json()) as StatusJson);
      else await res.arrayBuffer();
    } catch {
      // Restarting: keep the last figures.
    }
    this.drawStatus(this.lastSummary);
  }

  private drawStatus(summary: ReturnType<typeof summarize> | undefined): void {
    if (this.stopped) return;
    const s = summary ?? this.lastSummary;
    const lines = [`[${this.state}] ${s === undefined ? 'no status yet' : summaryLine(s)} · ${this.types}`];
    if (s?.lastError !== undefined) lines.push(`  last error: ${s.lastError}`);
    this.status.update(lines);
  }
}
