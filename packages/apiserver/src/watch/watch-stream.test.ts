import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelSelector } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { ChangeEvent } from '../storage/change-event.js';
import type { StoredObject } from '../storage/change-event.js';
import { WatchStream, catchUpChunkBytes } from './watch-stream.js';
import type { CatchUpItem, WatchStreamOptions } from './watch-stream.js';

/** A stand-in for the HTTP response: records every write and how the stream was closed. */
class RecordingResponse extends EventEmitter {
  readonly writes: Buffer[] = [];
  /** What the socket has not taken yet (set by a test to play a slow client). */
  writableLength = 0;
  /** Set by a test to play a socket that has not taken the last write yet ('drain' then resumes). */
  writableNeedDrain = false;
  ended = false;
  destroyed = false;
  readonly socket = { destroy: (): void => void (this.destroyed = true) };

  write(chunk: string | Buffer): boolean {
    this.writes.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return true;
  }

  end(): void {
    this.ended = true;
  }

  destroy(): void {
    this.destroyed = true;
  }

  /** Every write as text. */
  get texts(): string[] {
    return this.writes.map((b) => b.toString('utf8'));
  }
}

function stored(name: string, rv: number, labels?: Record<string, string>): StoredObject {
  const object: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', resourceVersion: String(rv), ...(labels && { labels }) } };
  return { object, json: JSON.stringify(object), rv, key: `default/${name}` };
}

function modified(name: string, rv: number): ChangeEvent {
  return new ChangeEvent('MODIFIED', stored(name, rv), stored(name, rv - 1));
}

function openStream(options: Partial<WatchStreamOptions> = {}, res = new RecordingResponse()): { res: RecordingResponse; stream: WatchStream } {
  const stream = new WatchStream(res as unknown as ServerResponse, {
    storeKey: 'configmaps',
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: undefined,
    labelSelector: undefined,
    fieldSelector: undefined,
    sinceRv: 0,
    bookmarks: false,
    table: undefined,
    ...options,
  });
  return { res, stream };
}

const endOfTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Waits (a bounded number of turns) until the stream's catch-up is all queued. */
async function caughtUp(stream: WatchStream): Promise<void> {
  for (let turn = 0; turn < 1000 && stream.catchingUp; turn++) await endOfTurn();
  assert.equal(stream.catchingUp, false, 'the catch-up finished');
}

/** `n` existing objects of about `bytes` bytes each, as catch-up items. */
function bigObjects(n: number, bytes: number): CatchUpItem[] {
  return Array.from({ length: n }, (_, i) => {
    const object: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}`, namespace: 'default', resourceVersion: String(i + 1) }, data: { v: 'x'.repeat(bytes) } };
    return { existing: { object, json: JSON.stringify(object), rv: i + 1, key: `default/big-${i}` } };
  });
}

function linesOf(text: string): { type: string; object: KubeObject }[] {
  assert.ok(text.endsWith('\n'), 'a write ends with a newline');
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; object: KubeObject });
}

describe('WatchStream batching', () => {
  test('events offered in one turn leave in one write at the end of the turn, one JSON object per line, in order', async () => {
    const { res, stream } = openStream();
    for (let rv = 11; rv <= 15; rv++) stream.offer(modified(`cm-${rv}`, rv));
    assert.equal(res.writes.length, 0, 'nothing is written before the end of the turn');
    await endOfTurn();
    assert.equal(res.writes.length, 1);
    const events = linesOf(res.texts[0] as string);
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.resourceVersion]),
      [11, 12, 13, 14, 15].map((rv) => ['MODIFIED', String(rv)]),
    );
  });

  test('events of a later turn go out in a later write', async () => {
    const { res, stream } = openStream();
    stream.offer(modified('a', 2));
    await endOfTurn();
    stream.offer(modified('a', 3));
    stream.offer(modified('a', 4));
    await endOfTurn();
    assert.deepEqual(
      res.texts.map((t) => linesOf(t).map((e) => e.object.metadata.resourceVersion)),
      [['2'], ['3', '4']],
    );
  });

  test('watchers offered the same events get equal bytes, and each event is encoded once', async () => {
    const a = openStream();
    const b = openStream();
    const events = [modified('x', 2), modified('y', 3)];
    for (const event of events) {
      a.stream.offer(event);
      b.stream.offer(event);
    }
    await endOfTurn();
    assert.equal(a.res.writes.length, 1);
    assert.equal(b.res.writes.length, 1);
    assert.deepEqual(a.res.writes[0], b.res.writes[0]);
    assert.equal(events[0]?.line(), events[0]?.line(), 'the line is built once');
  });

  test('selectors still decide per watcher: entering is ADDED, leaving is DELETED, outside is skipped', async () => {
    const { res, stream } = openStream({ labelSelector: LabelSelector.parse('color=red') });
    stream.offer(new ChangeEvent('MODIFIED', stored('s', 2, { color: 'red' }), stored('s', 1, { color: 'blue' })));
    stream.offer(new ChangeEvent('MODIFIED', stored('s', 3, { color: 'red' }), stored('s', 2, { color: 'red' })));
    stream.offer(new ChangeEvent('MODIFIED', stored('s', 4, { color: 'blue' }), stored('s', 3, { color: 'red' })));
    stream.offer(new ChangeEvent('MODIFIED', stored('s', 5, { color: 'blue' }), stored('s', 4, { color: 'blue' })));
    await endOfTurn();
    const events = linesOf(res.texts.join(''));
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.resourceVersion, e.object.metadata.labels?.color]),
      [
        ['ADDED', '2', 'red'],
        ['MODIFIED', '3', 'red'],
        ['DELETED', '4', 'red'],
      ],
    );
  });

  test('a stream over a response whose client already went away starts closed: it never holds a watch slot or a timer', async () => {
    // Node emits 'close' once; a request that waited (latency, a slow body) may find its client gone.
    const gone = new RecordingResponse();
    gone.destroyed = true;
    const { res, stream } = openStream({}, gone);
    assert.equal(stream.closed, true);
    let closedCalls = 0;
    stream.onClose(() => closedCalls++);
    assert.equal(closedCalls, 1, 'onClose runs at once');
    stream.offer(modified('cm-1', 1));
    await endOfTurn();
    assert.equal(res.writes.length, 0);
  });

  test('end() writes what is queued before ending the response', () => {
    const { res, stream } = openStream();
    stream.offer(modified('e', 2));
    stream.sendBookmark(2);
    stream.end();
    assert.equal(res.ended, true);
    assert.deepEqual(
      linesOf(res.texts.join('')).map((e) => e.type),
      ['MODIFIED', 'BOOKMARK'],
    );
    assert.equal(stream.closed, true);
  });

  test('destroy(midLine) writes the queued lines, then half a line, then cuts', async () => {
    const { res, stream } = openStream();
    stream.offer(modified('m', 2));
    stream.destroy(true);
    const text = res.texts.join('');
    const newline = text.indexOf('\n');
    assert.equal(JSON.parse(text.slice(0, newline)).type, 'MODIFIED');
    assert.throws(() => JSON.parse(text.slice(newline + 1)) as unknown);
    await endOfTurn();
    assert.equal(res.destroyed, true);
  });

  test('a reset (destroy without midLine) drops the queued lines', async () => {
    const { res, stream } = openStream();
    stream.offer(modified('r', 2));
    stream.destroy(false);
    await endOfTurn();
    assert.equal(res.writes.length, 0);
    assert.equal(res.destroyed, true);
  });

  test('a client gone before the end of the turn gets nothing more written', async () => {
    const { res, stream } = openStream();
    stream.offer(modified('g', 2));
    res.emit('close');
    await endOfTurn();
    assert.equal(res.writes.length, 0);
    assert.equal(stream.closed, true);
  });

  test('a watcher whose unsent bytes would pass maxBufferedBytes is ended cleanly after what was queued', async () => {
    const { res, stream } = openStream({ maxBufferedBytes: 4096 });
    const lineBytes = modified('b', 2).line().length;
    res.writableLength = 4096 - 2 * lineBytes;
    stream.offer(modified('b', 2));
    stream.offer(modified('b', 3));
    assert.equal(stream.closed, false, 'exactly at the bound is still fine');
    stream.offer(modified('b', 4));
    assert.equal(stream.closed, true);
    assert.equal(res.ended, true, 'ended, not cut: the client reads what was queued');
    assert.equal(res.destroyed, false);
    assert.deepEqual(
      linesOf(res.texts.join('')).map((e) => e.object.metadata.resourceVersion),
      ['2', '3'],
    );
    stream.offer(modified('b', 5));
    await endOfTurn();
    assert.equal(res.writes.length, 1, 'nothing after the end');
    res.emit('close');
  });

  test('the catch-up a client asked for does not count against maxBufferedBytes, live lines after it do', async () => {
    const { res, stream } = openStream({ maxBufferedBytes: 1024 });
    stream.catchUp(Array.from({ length: 20 }, (_, i): CatchUpItem => ({ existing: stored(`initial-${i}`, i + 1) })));
    await caughtUp(stream);
    const backlog = res.writes[0]?.length ?? 0;
    assert.ok(backlog > 1024, 'the backlog alone is over the bound');
    assert.equal(stream.closed, false, "the backlog is the client's own request");
    // What the socket has not taken when the catch-up is done is the base: 1024 bytes more may wait.
    const lineBytes = modified('initial-0', 30).line().length;
    res.writableLength = 1024 - lineBytes;
    stream.offer(modified('initial-0', 30));
    assert.equal(stream.closed, false, 'exactly at the bound');
    stream.offer(modified('initial-0', 31));
    assert.equal(stream.closed, true);
    res.emit('close');
  });

});

describe('WatchStream catch-up', () => {
  test('the catch-up is written a chunk at a time, the next one only once the socket took the last (drain)', async () => {
    const { res, stream } = openStream();
    stream.catchUp(bigObjects(8, 100 * 1024));
    res.writableNeedDrain = true;
    for (let turn = 0; turn < 20; turn++) await endOfTurn();
    assert.equal(res.writes.length, 1, 'one chunk, then nothing while the socket does not drain');
    assert.ok((res.writes[0]?.length ?? 0) >= catchUpChunkBytes && (res.writes[0]?.length ?? 0) < catchUpChunkBytes + 110 * 1024);
    res.writableNeedDrain = false;
    res.emit('drain');
    await caughtUp(stream);
    const events = linesOf(res.texts.join(''));
    assert.deepEqual(
      events.map((e) => e.object.metadata.name),
      Array.from({ length: 8 }, (_, i) => `big-${i}`),
    );
    assert.ok(res.writes.length > 1);
  });

  test('live changes offered during the catch-up follow it in order, and a Table watch sends its column definitions once, first', async () => {
    const printer = { columnDefinitions: [{ name: 'Name', type: 'string', format: 'name', description: '', priority: 0 }], cells: (o: KubeObject) => [o.metadata.name] };
    const table = { request: { apiVersion: 'meta.k8s.io/v1', includeObject: 'None' }, printer, key: 'table' } as unknown as WatchStreamOptions['table'];
    const { res, stream } = openStream({ table });
    stream.catchUp([{ existing: stored('first', 1) }, { bookmark: 1, annotations: { 'k8s.io/initial-events-end': 'true' } }]);
    stream.offer(modified('live', 2));
    stream.sendBookmark(2);
    assert.equal(res.writes.length, 0, 'live changes wait behind the catch-up');
    await caughtUp(stream);
    await endOfTurn();
    const events = linesOf(res.texts.join('')) as unknown as { type: string; object: { columnDefinitions: unknown; rows: { cells: string[] }[]; metadata: { resourceVersion?: string } } }[];
    assert.deepEqual(
      events.map((e) => [e.type, e.object.rows[0]?.cells[0] ?? e.object.metadata.resourceVersion]),
      [
        ['ADDED', 'first'],
        ['BOOKMARK', '1'],
        ['MODIFIED', 'live'],
        ['BOOKMARK', '2'],
      ],
    );
    assert.deepEqual(
      events.map((e) => e.object.columnDefinitions !== null),
      [true, false, false, false],
    );
  });

  test('a client that reads none of its catch-up while live changes pile up past maxBufferedBytes is ended', async () => {
    const { res, stream } = openStream({ maxBufferedBytes: 64 * 1024 });
    stream.catchUp(bigObjects(8, 100 * 1024));
    res.writableNeedDrain = true;
    await endOfTurn();
    assert.equal(res.writes.length, 1);
    const live = new ChangeEvent('MODIFIED', (bigObjects(1, 10 * 1024)[0] as { existing: StoredObject }).existing, stored('big-0', 0));
    for (let i = 0; i < 6; i++) stream.offer(live);
    assert.equal(stream.closed, false, 'about 60 KiB of live changes wait');
    stream.offer(live);
    assert.equal(stream.closed, true);
    assert.equal(res.ended, true, 'ended cleanly after what was written');
    res.emit('close');
  });
});
