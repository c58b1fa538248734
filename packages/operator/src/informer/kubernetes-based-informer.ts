/**
 * An informer over list + watch: grafana-app-sdk's `KubernetesBasedInformer`, written as the
 * explicit state machine of `informer-state.ts` (kube-rs style) instead of wrapping client-go.
 *
 * Flow: paginated list -> diff against the cache, swap it, deliver -> watch from the list's
 * resourceVersion (bookmarks on, server timeout randomised between `watchTimeoutSeconds` and
 * twice that) -> a clean end re-watches at once from the last resourceVersion (not an error) ->
 * 410 relists and diffs (deletes missed in the gap are delivered with the last known object) ->
 * any other error backs off (jittered, Retry-After as a floor; reset by a watch that worked) and
 * resumes. It never stops until the signal aborts. See `informer-state.ts` for the exact rules.
 */
import { EventEmitter } from 'eventemitter3';
import type { Span } from '@opentelemetry/api';
import { KubeloopError, isCodecError, isGone } from '@kubeloop/resource';
import type { KubeObject, Schema, WatchResponse } from '@kubeloop/resource';
import { DEFAULT_BACKOFF_CAP_MS, JitteredExponentialBackoff } from './backoff.js';
import { OutageLog } from './outage-log.js';
import { checkSelectors } from './checked-selectors.js';
import type { Backoff } from './backoff.js';
import { realClock } from '../clock.js';
import type { Clock, Timer } from '../clock.js';
import { InvalidArgumentError } from '../errors.js';
import { holdProcessOpen } from '../keep-alive.js';
import type { Informer, ReadonlyStore } from './informer.js';
import { initialState, transition } from './informer-state.js';
import type { InformerInput, InformerState, InitialListStrategy, ListedState, ListingState, RelistReason, StreamingListState, TransitionDeps, WatchingState } from './informer-state.js';
import { InformerStore, ObjectIndex } from './informer-store.js';
import { consoleLogger } from '../observability/logger.js';
import type { Logger } from '../observability/logger.js';
import type { BoundInformerMetrics, InformerMetrics, InformerRestartReason } from '../observability/metrics.js';
import { SpanNames, endSpan, getTracer, runInSpan, startObjectSpan, tracingEnabled } from '../observability/tracing.js';
import type { ListWatchClient } from './list-watch-client.js';
import { readInitialEvents } from './streaming-list.js';
import { ShardFilter, blueprintShardInfo } from './informer-shard.js';
import type { InformerShard } from './informer-shard.js';
import type { HandlerContext, ResourceWatcher } from '../handlers/resource-watcher.js';

/** Where an informer error happened. */
export type InformerErrorPhase = 'list' | 'watch' | 'handler';

/** What an {@link InformerErrorHandler} is told besides the error. */
export interface InformerErrorContext {
  phase: InformerErrorPhase;
  /** The kind of the informer. */
  kind: string;
  /** For `handler` errors: the object being delivered. */
  object?: KubeObject | undefined;
}

/** Receives every error of an informer: list and watch failures (then retried) and handler failures (then dropped). */
export type InformerErrorHandler = (context: InformerErrorContext, error: unknown) => void;

/** Lifecycle events of a {@link KubernetesBasedInformer} (eventemitter3). */
export interface InformerEvents {
  /** The initial list has been delivered to handlers (once per informer). */
  synced: [];
  /** A watch connection was opened from this resourceVersion. */
  watchStart: [resourceVersion: string];
  /** A list or watch failed, or a watch went silent; the informer backs off or reconnects by itself. */
  watchError: [error: unknown];
  /** A full list started. */
  relist: [reason: RelistReason];
  /** The state machine moved (for debugging and tests). */
  stateChange: [state: InformerState];
}

/** Options of {@link KubernetesBasedInformer}; every one has a default. */
export interface KubernetesBasedInformerOptions<T extends KubeObject = KubeObject> {
  /** Label selector, e.g. `app=web`; a malformed one throws a `SelectorError` from the constructor. Default: every object. */
  labelSelector?: string;
  /** Field selector, e.g. `metadata.name=x`; a malformed one throws a `SelectorError` from the constructor. Default: every object. */
  fieldSelector?: string;
  /** Objects per list page. Default: 500. */
  pageSize?: number;
  /**
   * How the initial state, and the state after a 410, is built: `'list'` (paginated LIST),
   * `'watchList'` (one watch with `sendInitialEvents=true` up to the `k8s.io/initial-events-end`
   * bookmark, retried after errors) or `'auto'` (streamed, with a paginated LIST when the server
   * refuses streaming: 400, 405, 406, 415, 422, 501). See `InitialListStrategy`. Default: 'list'.
   */
  initialListStrategy?: InitialListStrategy;
  /**
   * The server is asked to end each watch after a random time between this and twice this (client-go
   * spreads reconnects the same way); the informer resumes at once. Default: 300 s.
   */
  watchTimeoutSeconds?: number;
  /**
   * A watch that delivers no event and no bookmark for this long is closed and resumed (a dead TCP
   * connection otherwise hangs forever). Checked every `inactivityTimeoutMs`, so the restart happens
   * after between one and two periods of silence. 0 disables it. Default: 300000 ms.
   */
  inactivityTimeoutMs?: number;
  /**
   * Every this many milliseconds, every cached object is delivered again as `update(obj, obj)` (the same
   * reference twice; InformerController turns it into `Resynced`). 0 disables resync. Default: 0.
   */
  resyncPeriodMs?: number;
  /** Applied to every object before it is cached and delivered, e.g. {@link stripManagedFields}. Default: none. */
  transform?: (object: T) => T;
  /** Receives every error, with its phase. Default: a one-line `console.error`. */
  errorHandler?: InformerErrorHandler;
  /** Time source for backoff, inactivity and resync. Default: the real clock. */
  clock?: Clock;
  /** Delays after errors. Default: `new JitteredExponentialBackoff({ clock })` (0.8 s .. 30 s, reset after 120 s). */
  backoff?: Backoff;
  /** Prometheus metrics (`informer_watch_connects_total`, `informer_restarts_total`, ...; see `InformerMetrics`). Default: none. */
  metrics?: Pick<InformerMetrics, 'forKind'>;
  /**
   * Receives what the informer does besides errors (those go to `errorHandler`): relists and waits
   * before the next request at `info`, clean ends of watches at `debug`. Default: `consoleLogger`.
   */
  logger?: Logger;
  /** Uniform random numbers in [0, 1) for the watch timeout spread. Default: `Math.random`. */
  random?: () => number;
  /**
   * KEP-5866 shard: only objects whose `metadata.uid` (or namespace) hashes into these ranges, e.g.
   * `[equalShardRange(i, 3)]` (replica i of 3) or a `ShardSelector`. Sent as `shardSelector` with every list
   * and watch (a server with `ShardedListAndWatch` sends only the shard), and applied on the client
   * to every listed object and event, so that a server without the feature (no `shardInfo` echoed;
   * said once in the log and in `informer_shard_client_filtering`) gives the same result. Ranges on
   * different fields, or none, throw an `InvalidArgumentError`. Default: unset (every object).
   */
  shard?: InformerShard;
}

/** A watch that went silent for longer than the inactivity timeout. */
export class WatchInactivityError extends KubeloopError {
  constructor(timeoutMs: number) {
    super('WatchInactivityError', `watch: no event or bookmark for ${timeoutMs} ms; reconnecting`);
  }
}

/**
 * A transform that drops `metadata.managedFields` before caching (often half of an object's size).
 * It modifies the freshly decoded object in place, which the informer owns.
 */
export function stripManagedFields<T extends KubeObject>(object: T): T {
  if (object.metadata.managedFields !== undefined) delete object.metadata.managedFields;
  return object;
}

const defaultErrorHandler: InformerErrorHandler = (context, error) => {
  // The message says what failed; the error's own text is the `error` attribute, once.
  consoleLogger.error(`informer ${context.phase} failed`, { component: 'KubernetesBasedInformer', kind: context.kind, error: errorMessage(error) });
};

/**
 * Adds `handler` to the `errorHandler` of an informer that has one (a {@link KubernetesBasedInformer},
 * or any informer with a public `errorHandler(context, error)` property). An errorHandler the user
 * set is kept and called first (a throw from it does not stop `handler`); the informer's default
 * one, which only logs, is replaced, so that an error is not logged twice. Later changes of the
 * informer's `errorHandler` replace the chain. Returns false when the informer has no `errorHandler`.
 */
export function chainInformerErrorHandler(informer: object, handler: InformerErrorHandler): boolean {
  const target = informer as { errorHandler?: unknown };
  const previous = target.errorHandler;
  if (typeof previous !== 'function') return false;
  if (previous === defaultErrorHandler) {
    target.errorHandler = handler;
    return true;
  }
  const first = previous as InformerErrorHandler;
  target.errorHandler = ((context, error) => {
    try {
      first.call(informer, context, error);
    } catch {
      // The user's handler failing must not hide the error from the next one.
    }
    handler(context, error);
  }) satisfies InformerErrorHandler;
  return true;
}

/** What a watch event means for handlers. */
const enum Op {
  Add,
  Update,
  Delete,
  /** delete(old) + add(new): same key, different uid. */
  Replace,
  Skip,
}

/**
 * An already resolved promise a handler returns to say its work is done (InformerController's
 * enqueueing handler): the informer goes on without awaiting it, which would only cost a turn.
 */
export const HANDLED: Promise<void> = Promise.resolve();

const ABORTED: InformerInput = { type: 'aborted' };
const COMMITTED: InformerInput = { type: 'committed' };
const ELAPSED: InformerInput = { type: 'backoffElapsed' };

/**
 * Lists and watches one kind in one namespace ('' = all) and tells handlers about every change.
 *
 * Guarantees: handlers are called one at a time, in event order, each call awaited; a throwing handler
 * goes to `errorHandler` and never stops the informer or the other handlers; after the initial list
 * (`hasSynced()`), the cache and the events delivered converge to the server's state through dropped
 * watches, 410s and errors; a delete seen only through a relist is delivered with the last known object;
 * an object deleted and recreated in a gap arrives as delete(old) + add(new).
 * Caveats: handlers added after `run()` see later events only; a cached object is shared with every
 * handler and must not be modified.
 */
export class KubernetesBasedInformer<T extends KubeObject = KubeObject> extends EventEmitter<InformerEvents> implements Informer<T> {
  /** Receives every error; may be replaced before `run()` (grafana-app-sdk's `ErrorHandler` field). */
  errorHandler: InformerErrorHandler;

  private readonly kind: Schema;
  private readonly client: ListWatchClient<T>;
  private readonly namespace: string;
  private readonly labelSelector: string | undefined;
  private readonly fieldSelector: string | undefined;
  private readonly pageSize: number;
  private readonly watchTimeoutSeconds: number;
  private readonly inactivityTimeoutMs: number;
  private readonly resyncPeriodMs: number;
  private readonly transform: ((object: T) => T) | undefined;
  private readonly clock: Clock;
  private metrics: BoundInformerMetrics | undefined;
  private readonly logger: Logger;
  private readonly random: () => number;
  private readonly deps: TransitionDeps;
  private readonly outage: OutageLog;
  /** The shard, when the informer has one (see `informer-shard.ts`). */
  private readonly shard: ShardFilter | undefined;

  private readonly cache = new InformerStore<T>();
  private readonly handlers: ResourceWatcher<T>[] = [];
  private buffer = new ObjectIndex<T>();
  private rv = '';
  private synced = false;
  private running = false;
  private ctx: HandlerContext = { signal: new AbortController().signal, logger: consoleLogger };
  private traceEvents = false;
  /** The object a watch event replaced in the cache, while that event is delivered. */
  private previous: T | undefined;

  // Resync coordination: the run loop and the resync timer never deliver at the same time.
  private delivering = false;
  private resyncing = false;
  private resyncPending = false;
  private exclusive: Promise<void> | undefined;
  private resyncTimer: Timer | undefined;

  /**
   * @param kind the kind to watch (its apiVersion and kind are filled into listed objects that lack them)
   * @param client list and watch (`Client<T>` of @kubeloop/resource)
   * @param namespace the namespace to watch; '' = all namespaces (the only choice for cluster-scoped kinds)
   */
  constructor(kind: Schema, client: ListWatchClient<T>, namespace: string, options: KubernetesBasedInformerOptions<T> = {}) {
    super();
    if (!kind) throw new InvalidArgumentError('kind cannot be nil');
    if (!client) throw new InvalidArgumentError('client cannot be nil');
    if (typeof namespace !== 'string') throw new InvalidArgumentError('namespace must be a string (\'\' for all namespaces)');
    if (kind.scope === 'Cluster' && namespace !== '') throw new InvalidArgumentError(`${kind.kind} is cluster-scoped: namespace must be ''`);
    this.kind = kind;
    this.client = client;
    this.namespace = namespace;
    checkSelectors(kind.kind, options);
    this.labelSelector = options.labelSelector || undefined;
    this.fieldSelector = options.fieldSelector || undefined;
    this.pageSize = options.pageSize ?? 500;
    this.watchTimeoutSeconds = options.watchTimeoutSeconds ?? 300;
    this.inactivityTimeoutMs = options.inactivityTimeoutMs ?? 300_000;
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.transform = options.transform;
    this.errorHandler = options.errorHandler ?? defaultErrorHandler;
    this.clock = options.clock ?? realClock;
    this.deps = { backoff: options.backoff ?? new JitteredExponentialBackoff({ clock: this.clock }), initialListStrategy: options.initialListStrategy ?? 'list' };
    this.metrics = options.metrics?.forKind(kind.kind);
    this.logger = options.logger ?? consoleLogger;
    this.random = options.random ?? Math.random;
    const warnAfterMs = this.deps.backoff.maxMs ?? DEFAULT_BACKOFF_CAP_MS;
    this.outage = new OutageLog(this.logger, warnAfterMs, { component: 'KubernetesBasedInformer', kind: kind.kind, namespace });
    this.shard =
      options.shard === undefined
        ? undefined
        : new ShardFilter(options.shard, { logger: this.logger, metrics: () => this.metrics, attributes: { component: 'KubernetesBasedInformer', kind: kind.kind, namespace } });
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1) throw new InvalidArgumentError('pageSize must be an integer >= 1');
    if (!(this.watchTimeoutSeconds >= 1)) throw new InvalidArgumentError('watchTimeoutSeconds must be >= 1');
    if (!(this.inactivityTimeoutMs >= 0)) throw new InvalidArgumentError('inactivityTimeoutMs must be >= 0');
    if (!(this.resyncPeriodMs >= 0)) throw new InvalidArgumentError('resyncPeriodMs must be >= 0');
    if (!['list', 'watchList', 'auto'].includes(this.deps.initialListStrategy ?? 'list')) {
      throw new InvalidArgumentError(`initialListStrategy must be 'list', 'watchList' or 'auto', got ${String(options.initialListStrategy)}`);
    }
  }

  /** The kind observed. */
  schema(): Schema {
    return this.kind;
  }

  /**
   * Counts into `metrics` when the informer was created without the `metrics` option (an
   * `InformerController` offers its own in `addInformer`); returns whether it took them.
   */
  useMetrics(metrics: Pick<InformerMetrics, 'forKind'>): boolean {
    if (this.metrics !== undefined) return false;
    this.metrics = metrics.forKind(this.kind.kind);
    return true;
  }

  /** The cache, keyed by `namespace/name`; swapped atomically on relists. Read-only: do not modify its objects. */
  get store(): ReadonlyStore<T> {
    return this.cache.view;
  }

  /** Adds a handler; one added during `run()` receives the events that follow. */
  addEventHandler(handler: ResourceWatcher<T>): void {
    if (!handler) throw new InvalidArgumentError('handler cannot be nil');
    this.handlers.push(handler);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = (): void => {
        this.off('synced', onSynced);
        reject(signal?.reason as Error);
      };
      const onSynced = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.once('synced', onSynced);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  lastSyncResourceVersion(): string {
    return this.rv;
  }

  /**
   * Lists, then watches, until `signal` aborts; then resolves (after a running resync finished). Never
   * rejects for API errors: those go to `errorHandler` and are retried. Rejects if already running.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new InvalidArgumentError('informer is already running');
    this.running = true;
    const release = holdProcessOpen();
    this.ctx = { signal, logger: consoleLogger };
    if (this.resyncPeriodMs > 0) this.resyncTimer = this.clock.setTimer(this.resyncPeriodMs, this.onResyncTimer);
    let state: InformerState = initialState(this.deps);
    try {
      while (state.phase !== 'Stopped') {
        const input = signal.aborted ? ABORTED : await this.execute(state, signal);
        const next = transition(state, input, this.deps);
        this.observe(state, input, next);
        state = next;
        this.notify('stateChange', state);
      }
    } finally {
      this.resyncTimer?.cancel();
      this.resyncTimer = undefined;
      while (this.exclusive !== undefined) await this.exclusive;
      this.running = false;
      release();
    }
  }

  /** Counts and logs a transition: why the informer lists or watches again, and how long it waits first. */
  private observe(from: InformerState, input: InformerInput, to: InformerState): void {
    const reason = restartReason(input);
    if (reason !== undefined) this.metrics?.restarted(reason);
    const attributes = { component: 'KubernetesBasedInformer', kind: this.kind.kind, namespace: this.namespace };
    if (input.type === 'watchClosed') {
      this.logger.debug('watch ended cleanly', { ...attributes, resourceVersion: input.resourceVersion, events: input.events, durationMs: input.durationMs });
    }
    if (from.phase === 'StreamingList' && to.phase === 'Listing') {
      this.logger.info('the server refused the streaming list; listing page by page', { ...attributes, error: input.type === 'streamFailed' ? errorMessage(input.error) : undefined });
    }
    if (to.phase === 'BackingOff') {
      if (to.reason === 'error') this.outage.failed(this.clock.now(), errorMessage(to.cause));
      this.metrics?.backingOff(to.delayMs);
      const message = to.reason === 'error' ? 'waiting before the next request after an error' : 'watches keep ending at once; pausing before the next one';
      this.logger.info(message, { ...attributes, delayMs: to.delayMs, reason: to.reason, error: to.cause === undefined ? undefined : errorMessage(to.cause) });
    } else if (from.phase === 'BackingOff') {
      this.metrics?.backingOff(0);
    }
    if ((to.phase === 'StreamingList' || (to.phase === 'Listing' && to.continueToken === undefined)) && to.reason === 'expired' && from.phase === 'Watching') {
      this.logger.info('watch history expired (410); relisting', { ...attributes, resourceVersion: this.rv });
    }
  }

  /** Performs the I/O of a state and reports its outcome. */
  private execute(state: InformerState, signal: AbortSignal): Promise<InformerInput> {
    switch (state.phase) {
      case 'Listing':
        return this.listPage(state, signal);
      case 'StreamingList':
        return this.streamList(state, signal);
      case 'Listed':
        return this.commit(state);
      case 'Watching':
        return this.watch(state, signal);
      case 'BackingOff':
        return this.clock.sleep(state.delayMs, signal).then(
          () => ELAPSED,
          () => ABORTED,
        );
      case 'Stopped':
        return Promise.resolve(ABORTED);
    }
  }

  private async listPage(state: ListingState, signal: AbortSignal): Promise<InformerInput> {
    if (state.continueToken === undefined) {
      // A fresh list: a fresh buffer (a relist builds the new cache beside the old one, then swaps).
      this.buffer = new ObjectIndex();
      this.metrics?.relisted();
      this.notify('relist', state.reason);
    }
    const span = this.startSpan(SpanNames.informerList);
    try {
      const list = await this.client.list(this.namespace, {
        labelSelector: this.labelSelector,
        fieldSelector: this.fieldSelector,
        limit: this.pageSize,
        continue: state.continueToken,
        shardSelector: this.shard?.selector,
        signal,
      });
      const { apiVersion, kind } = this.kind;
      const transform = this.transform;
      const shard = this.shard;
      shard?.observeEcho(list.metadata.shardInfo);
      for (const item of list.items) {
        if (shard !== undefined && !shard.keeps(item)) continue;
        if (!item.apiVersion) item.apiVersion = apiVersion;
        if (!item.kind) item.kind = kind;
        const object = transform ? transform(item) : item;
        this.buffer.add(object);
      }
      endSpan(span);
      return { type: 'listPage', resourceVersion: list.metadata.resourceVersion ?? '', continueToken: list.metadata.continue || undefined };
    } catch (error) {
      endSpan(span, error);
      if (signal.aborted) return ABORTED;
      this.report(error, 'list');
      return { type: 'listFailed', error };
    }
  }

  /** Fills a fresh buffer from one streaming-list watch, up to the end-of-initial-events bookmark. */
  private async streamList(state: StreamingListState, signal: AbortSignal): Promise<InformerInput> {
    const buffer = new ObjectIndex<T>();
    this.buffer = buffer;
    this.metrics?.relisted();
    this.notify('relist', state.reason);
    const span = this.startSpan(SpanNames.informerList);
    let watch: WatchResponse<T> | undefined;
    try {
      watch = await this.client.watch(this.namespace, {
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.floor(this.watchTimeoutSeconds * (1 + this.random())),
        labelSelector: this.labelSelector,
        fieldSelector: this.fieldSelector,
        shardSelector: this.shard?.selector,
        signal,
      });
      this.outage.resumed(this.clock.now());
      this.metrics?.watchConnected();
      const shard = this.shard;
      const { apiVersion, kind } = this.kind;
      const transform = this.transform;
      const prepare = (item: T): T => {
        if (!item.apiVersion) item.apiVersion = apiVersion;
        if (!item.kind) item.kind = kind;
        return transform ? transform(item) : item;
      };
      const resourceVersion = await readInitialEvents(watch, {
        put: (item) => {
          if (shard === undefined || shard.keeps(item)) buffer.add(prepare(item));
        },
        remove: (item) => buffer.remove(item.metadata.namespace ?? '', item.metadata.name),
        end: (bookmark) => shard?.observeEcho(blueprintShardInfo(bookmark)),
      });
      endSpan(span);
      return { type: 'streamEnded', resourceVersion };
    } catch (error) {
      endSpan(span, error);
      if (signal.aborted) return ABORTED;
      this.report(error, 'list');
      return { type: 'streamFailed', error };
    } finally {
      watch?.stop();
    }
  }

  private async commit(state: ListedState): Promise<InformerInput> {
    await this.enterDelivery();
    // Objects of a list get their informer-event-* spans too (upstream's informer delivers them as adds).
    this.traceEvents = tracingEnabled();
    try {
      const deltas = this.cache.replace(this.buffer);
      this.buffer = new ObjectIndex();
      this.rv = state.resourceVersion;
      for (const delta of deltas) {
        const pending =
          delta.type === 'add'
            ? this.deliver(Op.Add, undefined, delta.object)
            : delta.type === 'update'
              ? this.deliver(Op.Update, delta.oldObject, delta.object)
              : this.deliver(Op.Delete, undefined, delta.object);
        if (pending !== undefined) {
          try {
            await pending;
          } catch (error) {
            this.report(error, 'handler', delta.object);
          }
        }
      }
    } finally {
      this.traceEvents = false;
      await this.leaveDelivery();
    }
    this.metrics?.synced(this.clock.now());
    if (!this.synced) {
      this.synced = true;
      this.notify('synced');
    }
    return COMMITTED;
  }

  private async watch(state: WatchingState, signal: AbortSignal): Promise<InformerInput> {
    const from = state.resourceVersion;
    this.rv = from;
    const span = this.startSpan(SpanNames.informerWatch);
    let watch: WatchResponse<T>;
    try {
      watch = await this.client.watch(this.namespace, {
        resourceVersion: from,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.floor(this.watchTimeoutSeconds * (1 + this.random())),
        labelSelector: this.labelSelector,
        fieldSelector: this.fieldSelector,
        shardSelector: this.shard?.selector,
        signal,
      });
    } catch (error) {
      endSpan(span, error);
      if (signal.aborted) return ABORTED;
      this.report(error, 'watch');
      // Never connected: it lived 0 ms, however long the request took to fail.
      return { type: 'watchFailed', error, resourceVersion: from, events: 0, durationMs: 0 };
    }
    const connectedAt = this.clock.now();
    this.outage.resumed(connectedAt);
    this.metrics?.watchConnected();
    this.notify('watchStart', from);
    this.traceEvents = span.isRecording();

    // Inactivity: a counter per event, compared by a timer once per period (no timer reset per event).
    let events = 0;
    let inactive = false;
    let timer: Timer | undefined;
    if (this.inactivityTimeoutMs > 0) {
      let seen = 0;
      const tick = (): void => {
        if (events === seen) {
          inactive = true;
          watch.stop();
        } else {
          seen = events;
          timer = this.clock.setTimer(this.inactivityTimeoutMs, tick);
        }
      };
      timer = this.clock.setTimer(this.inactivityTimeoutMs, tick);
    }

    let failure: unknown;
    const transform = this.transform;
    const metrics = this.metrics;
    const shard = this.shard;
    try {
      for await (const event of watch) {
        if (event.type === 'ERROR') {
          failure = event.error;
          break;
        }
        events++;
        if (metrics !== undefined) metrics.eventReceived(this.clock.now());
        // Another shard's object (a server without the feature): its resourceVersion still counts as seen.
        if (event.type === 'BOOKMARK' || (shard !== undefined && !shard.keeps(event.object))) {
          this.rv = event.object.metadata.resourceVersion || this.rv;
          continue;
        }
        const object = transform === undefined ? event.object : transform(event.object);
        while (this.exclusive !== undefined) await this.exclusive;
        this.delivering = true;
        const op = this.applyToCache(event.type, object);
        const pending = this.deliver(op, this.previous, object);
        if (pending !== undefined) {
          try {
            await pending;
          } catch (error) {
            this.report(error, 'handler', object);
          }
        }
        this.previous = undefined;
        this.delivering = false;
        if (this.resyncPending) await this.runPendingResync();
        this.rv = object.metadata.resourceVersion || this.rv;
      }
    } catch (error) {
      failure = error;
    } finally {
      this.delivering = false;
      this.previous = undefined;
      timer?.cancel();
      watch.stop();
      this.traceEvents = false;
    }
    const stats = { resourceVersion: this.rv, events, durationMs: this.clock.now() - connectedAt };
    endSpan(span, signal.aborted ? undefined : failure);
    if (signal.aborted) return ABORTED;
    if (failure !== undefined) {
      this.report(failure, 'watch');
      return { type: 'watchFailed', error: failure, ...stats };
    }
    if (inactive) {
      this.report(new WatchInactivityError(this.inactivityTimeoutMs), 'watch');
      return { type: 'watchInactive', ...stats };
    }
    return { type: 'watchClosed', ...stats };
  }

  /**
   * Applies one watch event to the cache and says what to deliver; the replaced object, if any, is
   * left in `previous` (no tuple allocated per event).
   */
  private applyToCache(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): Op {
    if (type === 'DELETED') {
      // The event carries the final state of the object.
      this.cache.remove(object);
      return Op.Delete;
    }
    const old = this.cache.put(object);
    if (old === undefined) return Op.Add;
    this.previous = old;
    // Same name, new object: the old one was deleted while we were not looking.
    if (old.metadata.uid !== object.metadata.uid && old.metadata.uid !== undefined && object.metadata.uid !== undefined) return Op.Replace;
    // A synthetic ADDED of an object we already hold unchanged (a watch from '' or '0') is no news.
    if (type === 'ADDED' && old.metadata.resourceVersion === object.metadata.resourceVersion) return Op.Skip;
    return Op.Update;
  }

  /**
   * Delivers one change to the handlers. Returns `undefined` once it is done: in the common case, one
   * handler that has done its work when it returns (InformerController's enqueue returns
   * {@link HANDLED}) and no tracing, a change costs no promise and no microtask turn, so a burst of
   * events or a list of 50,000 objects is delivered without one per object. Otherwise a promise to
   * await before the next change: that handler's own (the caller reports its rejection: no promise
   * is added around it), or that of the general path, which reports failures itself.
   */
  private deliver(op: Op, previous: T | undefined, object: T): Promise<void> | undefined {
    if (op === Op.Skip) return undefined;
    if (op === Op.Replace || this.traceEvents || this.handlers.length !== 1) return this.deliverEach(op, previous, object);
    try {
      const done = this.call(this.handlers[0]!, op, previous, object);
      if (done !== HANDLED) return done;
    } catch (error) {
      this.report(error, 'handler', object);
    }
    return undefined;
  }

  /** The general path of {@link deliver}: every handler awaited in turn, a replace as delete(old) + add(new). */
  private async deliverEach(op: Op, previous: T | undefined, object: T): Promise<void> {
    switch (op) {
      case Op.Add:
      case Op.Update:
      case Op.Delete:
        return this.fanOut(op, previous, object);
      case Op.Replace:
        await this.fanOut(Op.Delete, undefined, previous!);
        return this.fanOut(Op.Add, undefined, object);
      case Op.Skip:
        return;
    }
  }

  /** One handler call for an add (`previous` unused), an update or a delete. */
  private call(handler: ResourceWatcher<T>, op: Op, previous: T | undefined, object: T): Promise<void> {
    return op === Op.Update ? handler.update(this.ctx, previous!, object) : op === Op.Add ? handler.add(this.ctx, object) : handler.delete(this.ctx, object);
  }

  /**
   * Calls every handler, in order, with one add (`previous` unused), update or delete; a failing
   * handler is reported and does not stop the others. One span for the fan-out when tracing.
   */
  private async fanOut(op: Op.Add | Op.Update | Op.Delete, previous: T | undefined, object: T): Promise<void> {
    const span = this.traceEvents ? startObjectSpan(op === Op.Add ? SpanNames.informerEventAdd : op === Op.Update ? SpanNames.informerEventUpdate : SpanNames.informerEventDelete, object) : undefined;
    let failure: unknown;
    for (const handler of this.handlers) {
      try {
        // Handlers run in the span's context: what they start (the controller's event span) is its child.
        await (span === undefined ? this.call(handler, op, previous, object) : runInSpan(span, () => this.call(handler, op, previous, object)));
      } catch (error) {
        failure = error;
        this.report(error, 'handler', object);
      }
    }
    if (span !== undefined) endSpan(span, failure);
  }

  // --- resync: delivered between events, never concurrently with them ---

  private readonly onResyncTimer = (): void => {
    this.resyncTimer = this.clock.setTimer(this.resyncPeriodMs, this.onResyncTimer);
    if (!this.synced || this.resyncing || this.exclusive !== undefined) return;
    if (this.delivering) {
      this.resyncPending = true;
      return;
    }
    this.exclusive = this.resync().finally(() => {
      this.exclusive = undefined;
    });
  };

  private async runPendingResync(): Promise<void> {
    this.resyncPending = false;
    this.delivering = true;
    try {
      await this.resync();
    } finally {
      this.delivering = false;
    }
  }

  private async resync(): Promise<void> {
    this.resyncing = true;
    // A resync is an update, and traced as one (upstream's informer gives it an informer-event-update span).
    const traceEvents = this.traceEvents;
    this.traceEvents = tracingEnabled();
    try {
      for (const object of Array.from(this.cache.values())) {
        if (this.ctx.signal.aborted) return;
        await this.fanOut(Op.Update, object, object);
      }
    } finally {
      this.traceEvents = traceEvents;
      this.resyncing = false;
    }
  }

  private async enterDelivery(): Promise<void> {
    while (this.exclusive !== undefined) await this.exclusive;
    this.delivering = true;
  }

  private async leaveDelivery(): Promise<void> {
    this.delivering = false;
    if (this.resyncPending) await this.runPendingResync();
  }

  // --- reporting ---

  /** Emits a lifecycle event; a listener that throws is reported, never allowed to stop the informer. */
  private notify<E extends keyof InformerEvents>(event: E, ...args: InformerEvents[E]): void {
    try {
      (this.emit as (event: E, ...args: InformerEvents[E]) => boolean)(event, ...args);
    } catch (error) {
      this.report(error, 'handler');
    }
  }

  private report(error: unknown, phase: InformerErrorPhase, object?: KubeObject): void {
    if (this.metrics !== undefined && isCodecError(error)) this.metrics.decodeError();
    if (phase !== 'handler') this.notify('watchError', error);
    try {
      this.errorHandler({ phase, kind: this.kind.kind, object }, error);
    } catch {
      // An error handler that throws must not stop the informer.
    }
  }

  private startSpan(name: string): Span {
    return getTracer().startSpan(name, {
      attributes: { 'kind.name': this.kind.kind, 'kind.group': this.kind.group, 'kind.version': this.kind.version, namespace: this.namespace },
    });
  }
}

/** The `informer_restarts_total` reason of a transition's input, if it ends a watch or a list. */
function restartReason(input: InformerInput): InformerRestartReason | undefined {
  switch (input.type) {
    case 'watchClosed':
      return 'clean_end';
    case 'watchInactive':
      return 'inactivity';
    case 'watchFailed':
    case 'listFailed':
    case 'streamFailed':
      return isGone(input.error) ? 'expired' : 'error';
    default:
      return undefined;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
