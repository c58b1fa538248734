/**
 * Serves `?watch=true`: headers flushed at once, then the initial events (from '' / '0', or with
 * `sendInitialEvents=true` followed by the `k8s.io/initial-events-end` bookmark) or the kept
 * changes after the requested resourceVersion, then live changes until the client leaves, the
 * `timeoutSeconds` deadline (a bookmark first, when asked for) or the server stops.
 *
 * A resume from before the kept history is answered 200 with one ERROR event carrying the 410
 * Expired Status, then the stream closes (what clients expect from a real server).
 */
import type { ServerResponse } from 'node:http';
import type { ListOptions } from '../http/list-options.js';
import { setLongTimeout } from '../long-timeout.js';
import type { CollectionTarget } from '../objects/object-context.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { PartialMetadataVersion } from '../objects/partial-object-metadata.js';
import { apiVersionOf, storeKeyOf } from '../types/resource-type.js';
import { tooOldResourceVersion } from '../http/status-error.js';
import { tableFormat } from '../table/table-encoding.js';
import type { TableRequest } from '../table/table-request.js';
import type { WatchHub } from './watch-hub.js';
import { WatchStream } from './watch-stream.js';
import type { CatchUpItem } from './watch-stream.js';
import type { ChangeEvent, StoredObject } from '../storage/change-event.js';

/** The longest Go `time.Duration` in whole seconds (kube-apiserver multiplies timeoutSeconds by time.Second). */
const maxGoDurationSeconds = 9_223_372_036;

/** Annotation of the bookmark that ends the initial events of a streaming list. */
export const initialEventsEndAnnotation = 'k8s.io/initial-events-end';

/** What a watch request asks for besides its target. */
export interface WatchRequest {
  /** Selectors, resourceVersion, bookmarks, timeout. */
  readonly options: ListOptions;
  /** Every event object as a one-row Table (`kubectl get -w`), the first one with the column definitions. Default: none. */
  readonly table?: TableRequest | undefined;
  /** Every event object as PartialObjectMetadata. Default: none. */
  readonly metadata?: PartialMetadataVersion | undefined;
}

/** Where a watch's events come from. */
export interface WatchSource {
  readonly store: ObjectStore;
  readonly hub: WatchHub;
}

/**
 * Annotation of the initial-events-end bookmark holding an empty list of the watched kind as base64
 * JSON, whose metadata carries what a LIST's would (kube-apiserver's `metav1.InitialEventsListBlueprintAnnotationKey`).
 */
export const initialEventsListBlueprintAnnotation = 'kubernetes.io/initial-events-list-blueprint';

/**
 * The annotations of the bookmark that ends a streaming list's initial events. A sharded watch
 * also gets the list blueprint with `metadata.shardInfo`, its initial sync's counterpart of a
 * LIST's `metadata.shardInfo` (KEP-5866: "initial sync of a WATCH").
 */
function initialEventsEndAnnotations(listKind: string, apiVersion: string, shard: string | undefined): Record<string, string> {
  const annotations: Record<string, string> = { [initialEventsEndAnnotation]: 'true' };
  if (shard !== undefined) {
    const blueprint = { kind: listKind, apiVersion, metadata: { shardInfo: { selector: shard } }, items: null };
    annotations[initialEventsListBlueprintAnnotation] = Buffer.from(JSON.stringify(blueprint), 'utf8').toString('base64');
  }
  return annotations;
}

/** ADDED for each object, then (for a streaming list) the bookmark that ends the initial events. */
function* initialEventItems(objects: readonly StoredObject[], end: { rv: number; annotations: Record<string, string> } | undefined): Generator<CatchUpItem> {
  for (const existing of objects) yield { existing };
  if (end !== undefined) yield { bookmark: end.rv, annotations: end.annotations };
}

function* changeItems(changes: Iterable<ChangeEvent>): Generator<CatchUpItem> {
  for (const change of changes) yield { change };
}

/** Starts a watch on `res`; returns the stream (already registered with the hub). */
export function serveWatch(source: WatchSource, target: CollectionTarget, request: WatchRequest, res: ServerResponse): WatchStream {
  const { store, hub } = source;
  const { type, version, namespace } = target;
  const { options: opts, table, metadata } = request;
  const storeKey = storeKeyOf(type);
  const current = store.resourceVersion;
  const requested = opts.resourceVersion;
  const fromNow = requested === undefined || requested === 0;
  const initialEvents = opts.sendInitialEvents ?? fromNow;

  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  res.socket?.setNoDelay(true);

  const stream = new WatchStream(res, {
    storeKey,
    apiVersion: apiVersionOf(type, version),
    kind: type.kind,
    namespace,
    labelSelector: opts.labelSelector,
    fieldSelector: opts.fieldSelector,
    shardSelector: opts.shardSelector,
    onShardFiltered: opts.shardSelector === undefined ? undefined : () => hub.shardCounters.filteredEvents++,
    sinceRv: initialEvents || fromNow ? current : (requested ?? current),
    bookmarks: opts.allowWatchBookmarks,
    table: table ? tableFormat(table, type.tablePrinter(version)) : undefined,
    metadata,
    ...(hub.maxBufferedBytes !== undefined && { maxBufferedBytes: hub.maxBufferedBytes }),
  });

  let catchUp: Iterable<CatchUpItem> = [];
  if (initialEvents) {
    // The objects as of `current` (stored objects are immutable): sent as the client reads them.
    const end = opts.sendInitialEvents === true ? { rv: current, annotations: initialEventsEndAnnotations(type.listKind, apiVersionOf(type, version), opts.shardSelector?.toString()) } : undefined;
    catchUp = initialEventItems([...store.values(storeKey)], end);
  } else if (!fromNow) {
    const history = store.history(storeKey);
    const backlog = history.after(requested ?? 0);
    if (!backlog) {
      stream.sendError(tooOldResourceVersion(requested ?? 0, history.since).status);
      stream.end();
      return stream;
    }
    catchUp = changeItems(backlog);
  }
  hub.add(stream);
  if (opts.shardSelector !== undefined) hub.shardCounters.watchShards++;
  stream.catchUp(catchUp);

  if (opts.timeoutSeconds !== undefined && opts.timeoutSeconds > 0) {
    // Go's time.Duration holds at most ~292 years: longer timeouts are that long, not a wrap-around.
    const cancel = setLongTimeout(() => {
      if (stream.options.bookmarks) stream.sendBookmark(store.resourceVersion);
      stream.end();
    }, Math.min(opts.timeoutSeconds, maxGoDurationSeconds) * 1000);
    stream.onClose(cancel);
  }
  return stream;
}
