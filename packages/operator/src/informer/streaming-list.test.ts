import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, CodecError } from '@kubeloop/resource';
import type { KubeObject, WatchEvent, WatchResponse } from '@kubeloop/resource';
import { INITIAL_EVENTS_END_ANNOTATION, StreamingListIncompleteError, readInitialEvents } from './streaming-list.js';
import { widget } from '../testing/fake-informer.js';

/** A watch that yields `events` and then ends (a clean close), recording how far it was read. */
function scriptedWatch(events: WatchEvent[]): WatchResponse & { read: number } {
  const watch = {
    read: 0,
    stop: (): void => undefined,
    async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent> {
      for (const event of events) {
        watch.read++;
        yield event;
      }
    },
  };
  return watch;
}

function bookmark(rv: string, end: boolean): WatchEvent {
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '', resourceVersion: rv, ...(end && { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } }) } };
  return { type: 'BOOKMARK', object: object };
}

function sink(): { put: (o: KubeObject) => void; remove: (o: KubeObject) => void; names: Set<string> } {
  const names = new Set<string>();
  return { put: (o) => void names.add(o.metadata.name), remove: (o) => void names.delete(o.metadata.name), names };
}

describe('readInitialEvents', () => {
  test('collects the initial events up to the end bookmark, returns its resourceVersion and reads no further', async () => {
    const watch = scriptedWatch([
      { type: 'ADDED', object: widget('a') },
      bookmark('5', false),
      { type: 'ADDED', object: widget('b') },
      { type: 'MODIFIED', object: widget('a', { rv: '6' }) },
      { type: 'ADDED', object: widget('c') },
      { type: 'DELETED', object: widget('c') },
      bookmark('9', true),
      { type: 'ADDED', object: widget('live') },
    ]);
    const into = sink();
    assert.equal(await readInitialEvents(watch, into), '9');
    assert.deepEqual([...into.names].sort(), ['a', 'b']);
    assert.equal(watch.read, 7, 'the live event after the bookmark is left to the watch that follows');
  });

  test('a stream that ends before the end bookmark is a StreamingListIncompleteError', async () => {
    await assert.rejects(readInitialEvents(scriptedWatch([{ type: 'ADDED', object: widget('a') }, bookmark('3', false)]), sink()), (err: unknown) => {
      return err instanceof StreamingListIncompleteError && /after 2 events/.test(err.message);
    });
  });

  test('an ERROR event (an expired resourceVersion, an undecodable line) fails the stream with its error', async () => {
    const gone = new ApiError({ status: 410, reason: 'Expired' });
    await assert.rejects(readInitialEvents(scriptedWatch([{ type: 'ERROR', error: gone }]), sink()), (err: unknown) => err === gone);
    const torn = new CodecError('bad line');
    await assert.rejects(readInitialEvents(scriptedWatch([{ type: 'ADDED', object: widget('a') }, { type: 'ERROR', error: torn }]), sink()), (err: unknown) => err === torn);
  });
});
