/**
 * grafana-app-sdk's label filters: a list of label selector requirements, every one of which must
 * match (the Go client joins them with `,` into `labelSelector`). `KubernetesBasedInformer` takes
 * the joined selector: `{ labelSelector: labelSelectorFromFilters(filters) }`.
 */

/** No filter: every object (grafana-app-sdk `EmptyLabelFilters`, what `NewKubernetesBasedInformer` passes). */
export const EmptyLabelFilters: readonly string[] = Object.freeze([]);

/** The label selector of `filters`: joined with `,` (all must match); '' (everything) for none. */
export function labelSelectorFromFilters(filters: readonly string[]): string {
  return filters.join(',');
}
