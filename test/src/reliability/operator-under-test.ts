/**
 * The operator a reliability program runs against: for each kind (Gadget, ConfigMap), one
 * KubernetesBasedInformer feeding one InformerController with a mirror watcher, an
 * OpinionatedWatcher, a mirror reconciler and an OpinionatedReconciler, plus a controller-runtime
 * style level-based Reconciler (its own controller and informer) reading the informer's cache, and a
 * mirror watcher behind a second informer that selects `tier=web` (objects move in and out of it
 * when their labels change).
 * Every handler writes what it believes into a {@link HandlerRecord}.
 *
 * Settings that differ from the defaults, and why: the informers' backoff is capped at
 * {@link BACKOFF_CAP_MS} (default 30 s) and the handler retry policy at the same cap (default 5 s
 * doubling), so that the convergence bound, cap + 1 s, fits a CI run.
 */
import { Client, ConfigMapKind, HttpTransport, LabelSelector, objectKey } from '@kubeloop/resource';
import type { KubeObject, Schema } from '@kubeloop/resource';
import {
  InformerController,
  JitteredExponentialBackoff,
  KubernetesBasedInformer,
  OpinionatedReconciler,
  OpinionatedWatcher,
  Operator,
  ReconcileAction,
  exponentialBackoffRetryPolicy,
  noopLogger,
} from '@kubeloop/operator';
import type { ErrorHandlerContext, HandlerContext, Reconciler, ResourceWatcher } from '@kubeloop/operator';
import { newController } from '@kubeloop/operator/reconcile';
import type { ReconcileController } from '@kubeloop/operator/reconcile';
import { setTimeout as sleep } from 'node:timers/promises';
import { GadgetKind, NAMESPACE } from './cluster.js';
import { HandlerRecord, viewKey } from './handler-record.js';
import type { ObjectKind } from './program.js';

/** The largest informer backoff and handler retry delay. */
export const BACKOFF_CAP_MS = 2000;
/** How long after the last fault every handler must have converged: the backoff cap plus one second. */
export const CONVERGENCE_BOUND_MS = BACKOFF_CAP_MS + 1000;

/** The finalizer of the OpinionatedWatchers. */
export const WATCHER_FINALIZER = 'reliability.kubeloop.dev/opinionated-watcher';
/** The finalizer of the OpinionatedReconcilers. */
export const RECONCILER_FINALIZER = 'reliability.kubeloop.dev/opinionated-reconciler';

/** The label selector of the selected informers. */
export const WEB_SELECTOR = LabelSelector.parse('tier=web');

/** Counts of reported errors, by where they came from (faults cause many; they are not violations). */
export type ErrorCounts = Record<string, number>;

/** A handler under test, with the finalizer it owns (if any). */
export interface HandlerUnderTest {
  record: HandlerRecord;
  kind: ObjectKind;
  finalizer: string | undefined;
  /** The objects the handler must see (its informer's label selector); undefined: every object. */
  selects: LabelSelector | undefined;
}

/** The operator of a program. */
export class OperatorUnderTest {
  readonly handlers: HandlerUnderTest[] = [];
  readonly errors: ErrorCounts = {};
  private readonly operator = new Operator();
  private readonly transport: HttpTransport;
  private readonly informers: KubernetesBasedInformer[] = [];
  private readonly levelControllers: ReconcileController[] = [];
  private readonly stop = new AbortController();
  private running: Promise<void> | undefined;
  /** The error `run()` rejected with, if any (an operator must not stop by itself). */
  runError: unknown;
  /** Every handler call waits this long before it runs (the `slowHandlers` fault); 0: no wait. */
  handlerDelayMs = 0;
  private readonly slow = async (): Promise<void> => {
    if (this.handlerDelayMs > 0) await sleep(this.handlerDelayMs);
  };

  constructor(url: string) {
    this.transport = new HttpTransport({ server: url });
    const controller = new InformerController({
      retryPolicy: exponentialBackoffRetryPolicy(100, 30, { maxDelay: BACKOFF_CAP_MS, jitter: 0.2 }),
      errorHandler: (ctx) => this.count(ctx),
      logger: noopLogger,
    });
    this.operator.addController(controller);
    this.addKind(controller, 'gadget', GadgetKind, new Client(GadgetKind, this.transport));
    this.addKind(controller, 'configmap', ConfigMapKind, new Client(ConfigMapKind, this.transport));
  }

  /** Starts every controller; `signal` (optional) stops them too, as {@link shutdown} does. */
  start(signal?: AbortSignal): void {
    signal?.addEventListener('abort', () => this.stop.abort(), { once: true });
    this.running = this.operator.run(this.stop.signal).catch((error: unknown) => {
      this.runError = error;
    });
  }

  /** Resolves once the operator's run has ended (stopped, or failed: see {@link runError}). */
  finished(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Informers (each holds one watch), the level-based controllers' included. */
  get informerCount(): number {
    return this.informers.length + this.levelControllers.length;
  }

  /** True once every informer delivered its first list. */
  hasSynced(): boolean {
    return this.informers.every((i) => i.hasSynced()) && this.levelControllers.every((c) => c.hasSynced());
  }

  /** Stops every controller and closes the connections. */
  async shutdown(): Promise<void> {
    this.stop.abort();
    await this.running;
    this.transport.close();
  }

  private count(ctx: Pick<ErrorHandlerContext, 'source'> & { phase?: string | undefined }): void {
    const key = ctx.phase !== undefined ? `${ctx.source}:${ctx.phase}` : ctx.source;
    this.errors[key] = (this.errors[key] ?? 0) + 1;
  }

  private backoff(): JitteredExponentialBackoff {
    return new JitteredExponentialBackoff({ initialMs: 100, maxMs: BACKOFF_CAP_MS });
  }

  private addKind(controller: InformerController, kind: ObjectKind, schema: Schema, client: Client<KubeObject>): void {
    const informer = new KubernetesBasedInformer(schema, client, NAMESPACE, { backoff: this.backoff(), logger: noopLogger });
    this.informers.push(informer);
    controller.addInformer(informer, kind);

    const mirror = this.handler(kind, 'mirror watcher', 'version', undefined);
    controller.addWatcher(recordingWatcher(mirror.record, kind, mirrorWatcher(mirror.record, kind), this.slow), kind);

    const opinionatedWatcher = this.handler(kind, 'OpinionatedWatcher', 'content', WATCHER_FINALIZER);
    controller.addWatcher(recordingWatcher(opinionatedWatcher.record, kind, userWatcher(opinionatedWatcher.record, kind, schema, client), this.slow), kind);

    const mirrorRec = this.handler(kind, 'mirror reconciler', 'version', undefined);
    controller.addReconciler(recordingReconciler(mirrorRec.record, kind, mirrorReconciler(mirrorRec.record, kind), this.slow), kind);

    const opinionatedRec = this.handler(kind, 'OpinionatedReconciler', 'content', RECONCILER_FINALIZER);
    const opinionated = new OpinionatedReconciler(client, RECONCILER_FINALIZER);
    opinionated.wrap(userReconciler(opinionatedRec.record, kind));
    controller.addReconciler(recordingReconciler(opinionatedRec.record, kind, opinionated, this.slow), kind);

    const webKey = `${kind}-web`;
    const webInformer = new KubernetesBasedInformer(schema, client, NAMESPACE, { backoff: this.backoff(), logger: noopLogger, labelSelector: WEB_SELECTOR.toString() });
    this.informers.push(webInformer);
    controller.addInformer(webInformer, webKey);
    const web = this.handler(kind, `${WEB_SELECTOR.toString()} mirror watcher`, 'version', undefined, WEB_SELECTOR);
    controller.addWatcher(recordingWatcher(web.record, kind, mirrorWatcher(web.record, kind), this.slow), webKey);

    const level = this.handler(kind, 'level-based Reconciler', 'version', undefined);
    const levelController: ReconcileController = newController({
      kind: schema,
      client,
      namespace: NAMESPACE,
      name: `${kind}-level`,
      informerOptions: { backoff: this.backoff(), logger: noopLogger },
      reconciler: {
        reconcile: async (_ctx, request) => {
          const key = `${kind}/${request.namespace}/${request.name}`;
          const end = level.record.begin(key);
          try {
            await this.slow();
            // Level-based: read the cache, as a controller-runtime reconciler reads its client's cache.
            const object = levelController.informer.store.get(objectKey({ metadata: { namespace: request.namespace, name: request.name } }));
            if (object === undefined) level.record.remove(key, undefined);
            else level.record.set(key, object);
            return {};
          } finally {
            end();
          }
        },
      },
      errorHandler: (ctx) => this.count(ctx),
      logger: noopLogger,
    });
    this.levelControllers.push(levelController);
    this.operator.addController(levelController);
  }

  private handler(kind: ObjectKind, name: string, contract: 'version' | 'content', finalizer: string | undefined, selects?: LabelSelector): HandlerUnderTest {
    const handler = { record: new HandlerRecord(`${kind} ${name}`, contract), kind, finalizer, selects };
    this.handlers.push(handler);
    return handler;
  }
}

/** Checks that calls of one object never overlap (the order is checked where the user's code sees objects). */
function recordingWatcher(record: HandlerRecord, kind: ObjectKind, inner: ResourceWatcher, slow: () => Promise<void>): ResourceWatcher {
  const around = async (object: KubeObject, call: () => Promise<void>): Promise<void> => {
    const end = record.begin(viewKey(kind, object));
    try {
      await slow();
      await call();
    } finally {
      end();
    }
  };
  return {
    add: (ctx, object) => around(object, () => inner.add(ctx, object)),
    update: (ctx, old, object) => around(object, () => inner.update(ctx, old, object)),
    delete: (ctx, object) => around(object, () => inner.delete(ctx, object)),
  };
}

function recordingReconciler(record: HandlerRecord, kind: ObjectKind, inner: Reconciler, slow: () => Promise<void>): Reconciler {
  return {
    reconcile: async (ctx, request) => {
      const end = record.begin(viewKey(kind, request.object));
      try {
        await slow();
        return await inner.reconcile(ctx, request);
      } finally {
        end();
      }
    },
  };
}

/** Believes every event. */
export function mirrorWatcher(record: HandlerRecord, kind: ObjectKind): ResourceWatcher {
  return {
    add: async (_ctx, object) => record.set(viewKey(kind, object), object),
    update: async (_ctx, _old, object) => record.set(viewKey(kind, object), object),
    delete: async (_ctx, object) => record.remove(viewKey(kind, object), object),
  };
}

/** Believes every request; Deleted removes. */
function mirrorReconciler(record: HandlerRecord, kind: ObjectKind): Reconciler {
  return {
    reconcile: async (_ctx, request) => {
      const key = viewKey(kind, request.object);
      if (request.action === ReconcileAction.Deleted) record.remove(key, request.object);
      else record.set(key, request.object);
      return {};
    },
  };
}

/** The user's functions behind an OpinionatedWatcher. */
function userWatcher(record: HandlerRecord, kind: ObjectKind, schema: Schema, client: Client<KubeObject>): OpinionatedWatcher {
  const watcher = new OpinionatedWatcher(schema, client, { finalizerSupplier: () => WATCHER_FINALIZER });
  const believe = async (_ctx: HandlerContext, object: KubeObject): Promise<void> => record.set(viewKey(kind, object), object);
  watcher.addFunc = believe;
  watcher.syncFunc = believe;
  watcher.updateFunc = async (ctx, _old, object) => believe(ctx, object);
  watcher.deleteFunc = async (_ctx, object) => record.deleted(viewKey(kind, object), object);
  return watcher;
}

/** The user's reconciler behind an OpinionatedReconciler: skips objects being deleted until told Deleted, as users do. */
function userReconciler(record: HandlerRecord, kind: ObjectKind): Reconciler {
  return {
    reconcile: async (_ctx, request) => {
      const key = viewKey(kind, request.object);
      if (request.action === ReconcileAction.Deleted) record.deleted(key, request.object);
      else if (request.object.metadata.deletionTimestamp) record.remove(key, request.object);
      else record.set(key, request.object);
      return {};
    },
  };
}
