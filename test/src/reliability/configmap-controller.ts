/**
 * One InformerController on the ConfigMaps of a {@link ReliabilityCluster}, for the scenarios that
 * put misbehaving handlers or a misbehaving stream next to a healthy mirror: it records every error
 * reported, watches the process for unhandled rejections, and checks at the end that the controller
 * never stopped by itself.
 */
import type { ConfigMap, KubeObject } from '@kubeloop/resource';
import { ConfigMapKind } from '@kubeloop/resource';
import { InformerController, JitteredExponentialBackoff, KubernetesBasedInformer, noopLogger } from '@kubeloop/operator';
import type { ErrorHandlerContext, InformerControllerConfig, InformerMetrics } from '@kubeloop/operator';
import { waitFor } from '../support/wait-for.js';
import { NAMESPACE } from './cluster.js';
import type { ReliabilityCluster } from './cluster.js';
import type { HandlerRecord } from './handler-record.js';
import { viewKey } from './handler-record.js';
import { ProcessGuard } from './process-guard.js';

/** Options of {@link ConfigMapController}. */
export interface ConfigMapControllerOptions {
  /** Controller settings (its error handler and logger are the harness's). Default: the controller's defaults. */
  config?: Omit<InformerControllerConfig, 'errorHandler' | 'logger'>;
  /** Informer metrics to count into. Default: none. */
  metrics?: InformerMetrics;
}

/** A controller on ConfigMaps; add handlers to `controller`, then {@link start}, then {@link stop}. */
export class ConfigMapController {
  readonly controller: InformerController;
  readonly informer: KubernetesBasedInformer<ConfigMap>;
  /** Every error reported to the controller's errorHandler. */
  readonly errors: { ctx: ErrorHandlerContext; err: unknown }[] = [];
  private readonly guard = new ProcessGuard();
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private runError: unknown;

  constructor(
    private readonly cluster: ReliabilityCluster,
    options: ConfigMapControllerOptions = {},
  ) {
    this.controller = new InformerController({ ...options.config, errorHandler: (ctx, err) => this.errors.push({ ctx, err }), logger: noopLogger });
    this.informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, cluster.configMaps, NAMESPACE, {
      backoff: new JitteredExponentialBackoff({ initialMs: 50, maxMs: 500 }),
      logger: noopLogger,
      ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    });
    this.controller.addInformer(this.informer, 'configmaps');
  }

  /** Runs the controller and waits for its informer's first list. */
  async start(): Promise<void> {
    this.guard.start();
    this.running = this.controller.run(this.abort.signal).catch((error: unknown) => {
      this.runError = error;
    });
    await this.informer.waitForSync(AbortSignal.timeout(10_000));
  }

  /** Waits until `record`'s view of the ConfigMaps whose key passes `select` equals the server's. */
  async converged(record: HandlerRecord, what: string, select: (key: string) => boolean = () => true): Promise<void> {
    await waitFor(
      async () => {
        const want = new Map((await this.cluster.configMaps.listAll(NAMESPACE)).items.map((o: KubeObject) => [viewKey('configmap', o), o.metadata.resourceVersion]));
        const have = [...record.view].filter(([k]) => select(k));
        return have.length === [...want.keys()].filter(select).length && have.every(([k, v]) => want.get(k) === v.resourceVersion);
      },
      { timeoutMs: 20_000, what: `${what} (it holds ${JSON.stringify([...record.view.keys()].filter(select))})` },
    );
  }

  /** Stops the controller; returns what must never happen: its own stop, unhandled rejections, uncaught exceptions. */
  async stop(): Promise<string[]> {
    this.abort.abort();
    await this.running;
    this.guard.stop();
    const problems = [...this.guard.problems];
    if (this.runError !== undefined) problems.push(`the controller stopped by itself: ${this.runError instanceof Error ? this.runError.message : JSON.stringify(this.runError)}`);
    return problems;
  }
}
