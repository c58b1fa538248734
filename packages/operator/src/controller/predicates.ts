/**
 * Predicates: typed filters of informer events, applied before an event is queued
 * (controller-runtime's `predicate` package). An event reaches the queue only when every predicate
 * of its source accepts it; the others are counted in `controller_predicate_filtered_events_total`.
 *
 * Semantics as controller-runtime's: a "changed" predicate filters updates only (creates and deletes
 * pass); `and`, `or`, `not` compose. A predicate that throws lets the event through (an object is
 * never lost to a bug in a filter) and is reported.
 */
import type { KubeObject } from '@kubeloop/resource';
import { Counter } from 'prom-client';
import type { Informer } from '../informer/informer.js';
import type { PrometheusCollector } from '../observability/metrics.js';
import type { ResourceWatcher } from '../handlers/resource-watcher.js';

/** An informer event as a predicate sees it. */
export type PredicateEvent<T extends KubeObject = KubeObject> =
  | { readonly type: 'create'; readonly object: T; /** From the informer's initial list (client-go `isInInitialList`). */ readonly isInInitialList: boolean }
  | { readonly type: 'update'; readonly old: T; readonly object: T }
  | { readonly type: 'delete'; readonly object: T };

/** True to let the event through. */
export type Predicate<T extends KubeObject = KubeObject> = (event: PredicateEvent<T>) => boolean;

/** Per-event-type functions of {@link predicateFuncs}; a missing one accepts. */
export interface PredicateFuncs<T extends KubeObject = KubeObject> {
  create?: ((object: T, isInInitialList: boolean) => boolean) | undefined;
  update?: ((old: T, object: T) => boolean) | undefined;
  delete?: ((object: T) => boolean) | undefined;
}

/** A predicate from one function per event type (controller-runtime `predicate.Funcs`); default: accept. */
export function predicateFuncs<T extends KubeObject = KubeObject>(funcs: PredicateFuncs<T>): Predicate<T> {
  return (event) => {
    switch (event.type) {
      case 'create':
        return funcs.create?.(event.object, event.isInInitialList) ?? true;
      case 'update':
        return funcs.update?.(event.old, event.object) ?? true;
      case 'delete':
        return funcs.delete?.(event.object) ?? true;
    }
  };
}

/** Updates pass when `changed(old, new)`; creates and deletes always pass. */
function onUpdate(changed: (old: KubeObject, object: KubeObject) => boolean): Predicate {
  return (event) => event.type !== 'update' || changed(event.old, event.object);
}

/** Updates pass when `metadata.generation` changed (spec changes; status writes do not bump it). Objects without a generation always pass. */
export const generationChanged: Predicate = onUpdate((old, object) => old.metadata.generation === undefined || object.metadata.generation === undefined || old.metadata.generation !== object.metadata.generation);

/** Updates pass when the labels changed. */
export const labelsChanged: Predicate = onUpdate((old, object) => !sameRecord(old.metadata.labels, object.metadata.labels));

/** Updates pass when the annotations changed. */
export const annotationsChanged: Predicate = onUpdate((old, object) => !sameRecord(old.metadata.annotations, object.metadata.annotations));

/** Updates pass when the finalizers changed (order included, as the API server keeps it). */
export const finalizersChanged: Predicate = onUpdate((old, object) => !sameList(old.metadata.finalizers, object.metadata.finalizers));

/** Updates pass when the resourceVersion changed: resyncs are filtered (controller-runtime `ResourceVersionChangedPredicate`). */
export const resourceVersionChanged: Predicate = onUpdate((old, object) => old.metadata.resourceVersion !== object.metadata.resourceVersion);

/** Passes when every predicate passes (controller-runtime `predicate.And`); none: always. */
export function and<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return (event) => predicates.every((p) => p(event));
}

/** Passes when some predicate passes (controller-runtime `predicate.Or`); none: never. */
export function or<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return (event) => predicates.some((p) => p(event));
}

/** Passes when `predicate` does not (controller-runtime `predicate.Not`). */
export function not<T extends KubeObject>(predicate: Predicate<T>): Predicate<T> {
  return (event) => !predicate(event);
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  return ak.every((k) => b?.[k] === a?.[k]);
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Options of a {@link PredicateFilter}. */
export interface PredicateFilterOptions {
  /** The `controller` label. */
  controller: string;
  /** Prefix of the metric name. Default: none. */
  namespace?: string | undefined;
  /** The counter of another filter, to share one registered metric. Default: a new one. */
  counter?: Counter<'controller' | 'event'> | undefined;
  /** Receives the error of a predicate that threw (the event passed). */
  onError: (error: unknown, event: PredicateEvent) => void;
}

/** Counts the events predicates filtered out, by event type, and applies a source's predicates. */
export class PredicateFilter {
  /** `controller_predicate_filtered_events_total`. */
  readonly counter: Counter<'controller' | 'event'>;
  private readonly onError: (error: unknown, event: PredicateEvent) => void;
  private readonly controller: string;

  constructor(options: PredicateFilterOptions) {
    this.onError = options.onError;
    this.controller = options.controller;
    this.counter = options.counter ?? new Counter({
      name: options.namespace ? `${options.namespace}_controller_predicate_filtered_events_total` : 'controller_predicate_filtered_events_total',
      help: 'Informer events that predicates kept from the queue',
      labelNames: ['controller', 'event'],
      registers: [],
    });
  }

  /** True when every predicate accepts `event` (or throws: the event passes and the error is reported). */
  accepts(predicates: readonly Predicate[] | undefined, event: PredicateEvent): boolean {
    if (predicates === undefined || predicates.length === 0) return true;
    for (const predicate of predicates) {
      let pass: boolean;
      try {
        pass = predicate(event);
      } catch (err) {
        this.onError(err, event);
        continue;
      }
      if (!pass) {
        this.counter.labels(this.controller, event.type).inc();
        return false;
      }
    }
    return true;
  }

  /**
   * Wraps the handler that queues an informer's events: it sees only the events every predicate
   * accepts. A create is `isInInitialList` while `informer` has not synced.
   */
  handler<T extends KubeObject>(predicates: readonly Predicate[], inner: ResourceWatcher<T>, informer: Pick<Informer, 'hasSynced'>): ResourceWatcher<T> {
    const RESOLVED = Promise.resolve();
    return {
      add: (ctx, object) => (this.accepts(predicates, { type: 'create', object, isInInitialList: !informer.hasSynced() }) ? inner.add(ctx, object) : RESOLVED),
      update: (ctx, old, object) => (this.accepts(predicates, { type: 'update', old, object }) ? inner.update(ctx, old, object) : RESOLVED),
      delete: (ctx, object) => (this.accepts(predicates, { type: 'delete', object }) ? inner.delete(ctx, object) : RESOLVED),
    };
  }

  collectors(): PrometheusCollector[] {
    return [this.counter];
  }
}
