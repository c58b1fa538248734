import { InvalidArgumentError } from './errors.js';
import type { PrometheusCollector } from './metrics.js';

/** Something an {@link Operator} runs (grafana-app-sdk `Controller`): `InformerController`, or your own loop. */
export interface Controller {
  /** Runs until `signal` aborts; rejects on a fatal error. */
  run(signal: AbortSignal): Promise<void>;
  /** The controller's metric collectors, if it has any. */
  prometheusCollectors?(): PrometheusCollector[];
}

/**
 * Runs controllers together (grafana-app-sdk `Operator`). The first controller to fail aborts
 * every other controller; `run()` rejects with that first error once all of them have stopped
 * (upstream returned at once and left the others running). Once the caller's signal has aborted,
 * errors are no longer failures: `run()` resolves, as upstream returns nil once stopped.
 */
export class Operator {
  private readonly controllers: Controller[] = [];
  private active: RunningSet | undefined;

  /**
   * Adds a controller. One added while the operator runs is started at once and stopped with the
   * others (upstream: not added to the running ones, so it never ran).
   * @throws InvalidArgumentError "controller cannot be nil".
   */
  addController(controller: Controller): void {
    if (controller == null) throw new InvalidArgumentError('controller cannot be nil');
    this.controllers.push(controller);
    this.active?.start(controller);
  }

  /** The collectors of every controller that has some, concatenated. */
  prometheusCollectors(): PrometheusCollector[] {
    const all: PrometheusCollector[] = [];
    for (const c of this.controllers) {
      if (typeof c.prometheusCollectors === 'function') all.push(...c.prometheusCollectors());
    }
    return all;
  }

  /**
   * Runs every controller until `signal` aborts or one fails, then resolves once all have
   * stopped; rejects with the first error if a controller failed before `signal` aborted (an error
   * raised while stopping is not a failure of the run). A controller that returns early without
   * error does not stop the others.
   */
  async run(signal: AbortSignal): Promise<void> {
    const set = new RunningSet(signal);
    this.active = set;
    try {
      for (const c of this.controllers) set.start(c);
      await set.done();
    } finally {
      this.active = undefined;
    }
    if (set.firstError !== undefined) throw set.firstError.error;
  }
}

/** The controllers of one `run()`: a shared abort, the first error, and a count of those still running. */
class RunningSet {
  firstError: { error: unknown } | undefined;
  private readonly abort = new AbortController();
  private running = 0;
  private finished: (() => void) | undefined;

  private readonly onOuterAbort: () => void;

  constructor(private readonly outer: AbortSignal) {
    this.onOuterAbort = () => this.stop(outer.reason);
    if (outer.aborted) this.abort.abort(outer.reason);
    else outer.addEventListener('abort', this.onOuterAbort, { once: true });
  }

  start(controller: Controller): void {
    this.running++;
    void this.runOne(controller);
  }

  /** Resolves once the run is stopping (signal aborted or a controller failed) and no controller runs. */
  done(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.finished = resolve;
      this.check();
    });
  }

  private stop(reason: unknown): void {
    this.abort.abort(reason);
    this.check();
  }

  private check(): void {
    if (this.abort.signal.aborted && this.running === 0 && this.finished !== undefined) {
      this.outer.removeEventListener('abort', this.onOuterAbort);
      this.finished();
    }
  }

  private async runOne(controller: Controller): Promise<void> {
    try {
      await controller.run(this.abort.signal);
    } catch (err) {
      // Only an error that stops the run counts: once stopping (the caller's signal, or an earlier failure) it does not.
      if (!this.abort.signal.aborted) {
        this.firstError = { error: err };
        this.abort.abort(err);
      }
    }
    this.running--;
    this.check();
  }
}
