/**
 * Reading a streaming list (WatchList, KEP-3157): a watch opened with `sendInitialEvents=true`
 * sends the state as ADDED events, then a BOOKMARK annotated `k8s.io/initial-events-end: "true"`
 * whose resourceVersion is the list's. What comes after it is a live watch, which the informer
 * opens again from that resourceVersion (see `informer-state.ts`).
 */
import { KubeloopError } from '@kubeloop/resource';
import type { KubeObject, WatchResponse } from '@kubeloop/resource';

/** The annotation of the bookmark that ends the initial events. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** A streaming list ended before its `k8s.io/initial-events-end` bookmark (a cut or timed-out stream): the buffer is incomplete. */
export class StreamingListIncompleteError extends KubeloopError {
  constructor(events: number) {
    super('StreamingListIncompleteError', `streaming list: the watch ended after ${events} events, before the ${INITIAL_EVENTS_END_ANNOTATION} bookmark`);
  }
}

/** Where the initial events go. */
export interface InitialEventsSink<T extends KubeObject> {
  /** An object of the initial state (ADDED; MODIFIED too, should a server send one). */
  put(object: T): void;
  /** An object gone before the end of the initial events (DELETED). */
  remove(object: T): void;
  /** The end bookmark itself (its annotations may carry the list's metadata). Default: not told. */
  end?(bookmark: T): void;
}

/**
 * Reads `watch` up to the end bookmark and returns its resourceVersion. Does not stop the watch.
 * @throws the `ERROR` event's error (an `ApiError` or a `CodecError`), the stream's own failure
 *   (a `NetworkError`), or {@link StreamingListIncompleteError} when the stream ends first.
 */
export async function readInitialEvents<T extends KubeObject>(watch: WatchResponse<T>, sink: InitialEventsSink<T>): Promise<string> {
  let events = 0;
  for await (const event of watch) {
    if (event.type === 'ERROR') throw event.error;
    events++;
    if (event.type === 'BOOKMARK') {
      if (event.object.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
        sink.end?.(event.object);
        return event.object.metadata.resourceVersion ?? '';
      }
    } else if (event.type === 'DELETED') {
      sink.remove(event.object);
    } else {
      sink.put(event.object);
    }
  }
  throw new StreamingListIncompleteError(events);
}
