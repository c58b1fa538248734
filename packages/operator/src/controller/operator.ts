import type { ControllerStatus, OperatorStatus } from '../status/controller-status.js';
import { ControllerLabelledMetrics } from '../observability/controller-labelled-metrics.js';
import type { LabelledSource } from '../observability/controller-labelled-metrics.js';
import { InvalidArgumentError } from '../errors.js';
import { whileHoldingProcessOpen } from '../keep-alive.js';
import type { PrometheusCollector } from '../observability/metrics.js';
import type { ShardParticipant, ShardRing } from '../sharding/shard-ring.js';
import { InformerController } from './informer-controller.js';

/** Something an {@link Operator} runs (grafana-app-sdk `Controller`): `InformerController`, or your own loop. */
export interface Controller {
  /** Runs until `signal` aborts; rejects on a fatal error. */
  run(signal: AbortSignal): Promise<void>;
  /** The controller's metric collectors, if it has any. */
  prometheusCollectors?(): PrometheusCollector[];
  /**
   * Warm replica: starts its informers before `run()` so that a new leader's caches are already full;
   * resolves once `run()` took over or `signal` aborted and they stopped. Optional: a controller
   * without it simply starts everything in `run()`.
   */
  warmUp?(signal: AbortSignal): Promise<void>;
  /** True once its caches have synced and its workers run (readiness), if it can tell. */
  hasSynced?(): boolean;
  /**
   * True once the informers it runs have synced, while warming up too (a warm follower's readiness),
   * if it can tell. Unlike `hasSynced`, it says nothing about workers.
   */
  cachesSynced?(): boolean;
  /** What the status page shows of it (informers, queue, recent handler calls), if it can tell (undefined: nothing yet). */
  status?(): ControllerStatus | undefined;
  /**
   * The `controller` label of its metrics in {@link Operator.prometheusCollectors}; unique within an
   * operator. Default: `controller-{n}`, n being its 1-based position in the operator.
   */
  readonly name?: string | undefined;
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
  private warming = false;
  private readonly metrics = new ControllerLabelledMetrics(() => this.metricSources());
  /** The ring this operator takes part in ({@link shardWith}), and the slots it runs. */
  private sharding: { readonly ring: ShardRing; running: ReadonlySet<number> } | undefined;

  /**
   * Adds a controller. One added while the operator runs is started at once and stopped with the
   * others (upstream: not added to the running ones, so it never ran).
   * @throws InvalidArgumentError "controller cannot be nil"; a controller with the same `name` was
   *   already added (controller-runtime: "controller with name X already exists").
   */
  addController(controller: Controller): void {
    if (controller == null) throw new InvalidArgumentError('controller cannot be nil');
    const name = controller.name;
    if (name !== undefined && this.controllers.some((c) => c.name === name)) {
      throw new InvalidArgumentError(`controller with name ${name} already exists: controller names must be unique (they label the metrics)`);
    }
    this.controllers.push(controller);
    // A sharded controller added once the operator takes part in a ring is gated and given the slots like the others.
    if (this.sharding !== undefined && isSharded(controller)) {
      const { ring, running } = this.sharding;
      controller.shardWith((object) => ring.admits(object));
      for (const informer of controller.shardedInformers()) void informer.setSlots(running, (slot) => ring.slotRange(slot));
    }
    this.active?.start(controller);
  }

  /**
   * One collector per metric name for every controller, each sample labelled `controller="{name}"`
   * (as controller-runtime), so that a registry holds each name once and shows every controller.
   * Values are read from the controllers at each scrape; the same objects come back on every call.
   * Call it after adding the controllers: a controller added later is scraped under the names
   * returned before, and a name only it has needs another call (and registration).
   */
  prometheusCollectors(): PrometheusCollector[] {
    return this.metrics.collectors();
  }

  private metricSources(): LabelledSource[] {
    const sources: LabelledSource[] = [];
    this.controllers.forEach((c, i) => {
      if (typeof c.prometheusCollectors !== 'function') return;
      const controller = c.name ?? `controller-${i + 1}`;
      for (const metric of c.prometheusCollectors()) sources.push({ controller, metric });
    });
    return sources;
  }

  /**
   * The status of every controller that can tell (`status`), named as in the metrics (`controller-{n}`
   * by default): what the operator server's `/status` page shows. Taken on demand.
   */
  status(): OperatorStatus {
    const controllers: ControllerStatus[] = [];
    this.controllers.forEach((c, i) => {
      const status = typeof c.status === 'function' ? c.status() : undefined;
      if (status !== undefined) controllers.push({ ...status, name: c.name ?? `controller-${i + 1}` });
    });
    return { controllers };
  }

  /**
   * Makes this operator a participant of `ring`: the controllers that have `ShardedInformer`s check
   * every handler call against the ring (`shardWith`), and the participant moves their informers to
   * the slots the ring hands it. A slot given up is first settled (no new call starts; calls running
   * get `handOverTimeoutMs` to end, then their signal aborts), then its objects are released to the
   * handlers. `runOperator({ sharding })` calls it.
   */
  shardWith(ring: ShardRing, options: { handOverTimeoutMs?: number | undefined } = {}): ShardParticipant {
    const timeoutMs = options.handOverTimeoutMs ?? 10_000;
    const sharded = (): InformerController[] => this.controllers.filter(isSharded);
    for (const controller of sharded()) controller.shardWith((object) => ring.admits(object));
    const sharding = { ring, running: new Set<number>() as ReadonlySet<number> };
    this.sharding = sharding;
    return {
      apply: async (slots) => {
        const stopping = new Set([...sharding.running].filter((slot) => !slots.has(slot)));
        if (stopping.size > 0) await Promise.all(sharded().map((c) => c.settle((object) => stopping.has(ring.slotOfObject(object)), { timeoutMs })));
        // Read again: a controller added meanwhile moves with the others.
        await Promise.all(sharded().flatMap((c) => c.shardedInformers()).map((informer) => informer.setSlots(slots, (slot) => ring.slotRange(slot))));
        sharding.running = new Set(slots);
      },
    };
  }

  /** Readiness: true while running once every controller that can tell (`hasSynced`) has opened its sync gate. */
  hasSynced(): boolean {
    return this.active !== undefined && this.controllers.every((c) => typeof c.hasSynced !== 'function' || c.hasSynced());
  }

  /**
   * True while warming up or running once every controller that can tell (`cachesSynced`) has synced
   * its caches: with `leaderElection.warmup`, `runOperator` makes it a follower's readiness.
   */
  cachesSynced(): boolean {
    return (this.warming || this.active !== undefined) && this.controllers.every((c) => typeof c.cachesSynced !== 'function' || c.cachesSynced());
  }

  /**
   * Warms every controller that can (`warmUp`): their informers start and fill their caches, no
   * handler runs until `run()`. `runOperator` calls it before campaigning when
   * `leaderElection.warmup` is set. Resolves once every warm-up has ended (taken over by `run()`, or
   * `signal` aborted and the informers stopped); rejects with the first warm-up error after all ended.
   */
  async warmUp(signal: AbortSignal): Promise<void> {
    this.warming = true;
    let results: PromiseSettledResult<void>[];
    try {
      results = await Promise.allSettled(this.controllers.map((c) => (typeof c.warmUp === 'function' ? c.warmUp(signal) : Promise.resolve())));
    } finally {
      this.warming = false;
    }
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
  }

  /**
   * Runs every controller until `signal` aborts or one fails, then resolves once all have
   * stopped; rejects with the first error if a controller failed before `signal` aborted (an error
   * raised while stopping is not a failure of the run). A controller that returns early without
   * error does not stop the others.
   */
  run(signal: AbortSignal): Promise<void> {
    return whileHoldingProcessOpen(() => this.runHeld(signal));
  }

  private async runHeld(signal: AbortSignal): Promise<void> {
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

/** An `InformerController` with `ShardedInformer`s: the ring gates its handler calls and moves its informers. */
function isSharded(controller: Controller): controller is InformerController {
  return controller instanceof InformerController && controller.shardedInformers().length > 0;
}
