/**
 * The smallest client surfaces the operator needs, defined by their users (grafana-app-sdk's
 * `ListWatchClient` and `PatchClient`). `Client<T>` of @kubeloop/resource satisfies both; tests
 * pass small fakes.
 */
import type { Identifier, KubeObject, ListObject, ListOptions, PatchRequest, RequestOptions, WatchOptions, WatchResponse, WriteOptions } from '@kubeloop/resource';

/** What an informer needs: one page of a list, and a watch. */
export interface ListWatchClient<T extends KubeObject = KubeObject> {
  /** One page of objects (`limit`, `continue`); namespace '' = every namespace. Objects should carry apiVersion and kind. */
  list(namespace: string, options?: ListOptions): Promise<ListObject<T>>;
  /** Opens a watch; rejects with an `ApiError` when the server refuses it (410 when the resourceVersion is too old). */
  watch(namespace: string, options?: WatchOptions): Promise<WatchResponse<T>>;
}

/**
 * What finalizer code needs: a JSON patch that returns the patched object, and a read to refetch
 * after a conflict. (`patch` rather than upstream's `PatchInto`: writing into the object would
 * modify the informer's cached copy under it.)
 */
export interface PatchClient<T extends KubeObject = KubeObject> {
  get(id: Identifier, options?: RequestOptions): Promise<T>;
  patch(id: Identifier, patch: PatchRequest, options?: WriteOptions): Promise<T>;
}
