import type { KubeloopError } from '../errors.js';
import type { KubeObject } from '../object.js';
import type { ShardSelector } from '../selector/shard-selector.js';

/** Options every request takes. */
export interface RequestOptions {
  /** Aborts the request. Default: none. */
  signal?: AbortSignal | undefined;
  /** Fails the request with a `NetworkError` (errno `ETIMEDOUT`) after this many milliseconds. Default: 30000; watches: none. */
  timeoutMs?: number | undefined;
}

/** Options of `list` and `listInto`. */
export interface ListOptions extends RequestOptions {
  /** Label selector, e.g. `app=web,tier!=db`. Default: everything. */
  labelSelector?: string | undefined;
  /** Field selector on `metadata.name` / `metadata.namespace`. Default: everything. */
  fieldSelector?: string | undefined;
  /** Page size. Default: no limit (the server's choice). */
  limit?: number | undefined;
  /** Continue token of the previous page. */
  continue?: string | undefined;
  /** `''` (default) reads the newest state; `'0'` accepts any cached state. */
  resourceVersion?: string | undefined;
  /** How `resourceVersion` is applied: `NotOlderThan` or `Exact`. Default: unset. */
  resourceVersionMatch?: 'NotOlderThan' | 'Exact' | undefined;
  /**
   * KEP-5866 shard: only objects whose `metadata.uid` (or namespace) hashes into these ranges, e.g.
   * `shardRanges([equalShardRange(0, 2)])` or its text. A server with the feature echoes it in the
   * list's `metadata.shardInfo`; one without ignores it and returns every object (check `shardInfo`).
   * Every page of a list must send the first page's. Default: unset (every object).
   */
  shardSelector?: ShardSelector | string | undefined;
}

/** Options of `watch`. */
export interface WatchOptions {
  /** Aborts the watch (equivalent to `stop()`). */
  signal?: AbortSignal | undefined;
  /** Start after this resourceVersion; `''`/`'0'` start with synthetic ADDED events. Default: `''`. */
  resourceVersion?: string | undefined;
  /** Ask the server for BOOKMARK events. Default: true. */
  allowWatchBookmarks?: boolean | undefined;
  /** Ask the server to close the watch cleanly after this many seconds. Default: unset (server's choice). */
  timeoutSeconds?: number | undefined;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /** Streaming list: initial ADDED events, then a bookmark annotated `k8s.io/initial-events-end`. Default: false. */
  sendInitialEvents?: boolean | undefined;
  /**
   * KEP-5866 shard (see `ListOptions.shardSelector`): a server with the feature sends only the
   * shard's events, and with `sendInitialEvents` echoes it on the end bookmark's
   * `kubernetes.io/initial-events-list-blueprint`; one without sends every event. Default: unset (every object).
   */
  shardSelector?: ShardSelector | string | undefined;
}

/** The event types of a watch stream. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/**
 * One decoded watch event. A line that cannot be decoded, and a server `ERROR` event, both become
 * `{ type: 'ERROR', error }`: an `ApiError` for a Status (410 -> `isGone`), a `CodecError` otherwise.
 */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { type: WatchEventType; object: T }
  | { type: 'ERROR'; error: KubeloopError };

/**
 * An open watch. Iterate it with `for await`; iteration ends when the server closes the stream
 * or `stop()` is called. A transport failure mid-stream ends iteration by throwing a `NetworkError`.
 */
export interface WatchResponse<T extends KubeObject = KubeObject> extends AsyncIterable<WatchEvent<T>> {
  /** Closes the stream; pending and later iterations end. Idempotent. */
  stop(): void;
}

/** One RFC 6902 JSON patch operation. */
export interface PatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  /** JSON pointer, e.g. `/metadata/finalizers/0`. */
  path: string;
  value?: unknown;
  from?: string;
}

/** A JSON patch (`application/json-patch+json`), as grafana-app-sdk's `resource.PatchRequest`. */
export interface PatchRequest {
  operations: PatchOperation[];
}

/**
 * A deep-partial RFC 7386 merge patch of `T`: every field optional at every depth (undefined ones are left out), `null` deletes a field,
 * arrays are replaced whole (as the merge patch format does).
 */
export type MergePatch<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: MergePatch<T[K]> | null | undefined } : T;

/** The `status` type of an object type (`unknown` when it declares none). */
export type StatusOf<T> = T extends { status?: infer S } ? NonNullable<S> : unknown;

/** An RFC 7386 merge patch (`application/merge-patch+json`), typed as a deep partial of the object. */
export interface MergePatchRequest<T = KubeObject> {
  merge: MergePatch<T>;
}

/** A strategic merge patch (`application/strategic-merge-patch+json`); built-in kinds only. */
export interface StrategicMergePatchRequest {
  strategic: Record<string, unknown>;
}

/** Server-side apply (`application/apply-patch+yaml`). */
export interface ApplyPatchRequest {
  apply: Record<string, unknown>;
  /** Required by the server for apply. */
  fieldManager: string;
  /** Take ownership of conflicting fields. Default: false. */
  force?: boolean | undefined;
}

/** Any patch the client can send; a merge patch is typed by the object type `T`. */
export type Patch<T = KubeObject> = PatchRequest | MergePatchRequest<T> | StrategicMergePatchRequest | ApplyPatchRequest;

/** Options of writes. */
export interface WriteOptions extends RequestOptions {
  /** Name of the writer recorded in managedFields. Default: unset. */
  fieldManager?: string | undefined;
  /** Validate without persisting. Default: false. */
  dryRun?: boolean | undefined;
  /** Target a subresource, e.g. `status`. Default: the main resource. */
  subresource?: string | undefined;
  /**
   * What the server does with fields the schema does not know or duplicated fields: `Strict` fails the write
   * (400), `Warn` drops them and sends a `Warning` header (see `HttpTransportOptions.warningHandler`),
   * `Ignore` drops them silently. Default: unset (the server's default, `Warn`).
   */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore' | undefined;
}

/** Options of `delete`. */
export interface DeleteOptions extends RequestOptions {
  /** Delete only if the object still has this uid / resourceVersion (409 otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string } | undefined;
  /** Default: unset (the server's default, `Background` for most kinds). */
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground' | undefined;
  gracePeriodSeconds?: number | undefined;
}
