/**
 * How an `InformerController` gives its informers its `InformerMetrics`: an informer that can take
 * metrics after construction (`KubernetesBasedInformer.useMetrics`) and was given none counts into
 * the controller's, whose `prometheusCollectors()` then include the `informer_*` families.
 */
import type { InformerMetrics } from './metrics.js';

/** An informer that accepts metrics after construction. */
export interface MetricsAwareInformer {
  /** Counts into `metrics` unless the informer already has metrics; returns whether it took them. */
  useMetrics(metrics: Pick<InformerMetrics, 'forKind'>): boolean;
}

/** Offers `metrics` to `informer`; true when it will count into them. */
export function offerInformerMetrics(informer: object, metrics: Pick<InformerMetrics, 'forKind'>): boolean {
  const candidate = informer as Partial<MetricsAwareInformer>;
  return typeof candidate.useMetrics === 'function' ? candidate.useMetrics(metrics) : false;
}
