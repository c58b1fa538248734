import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WatchEvent } from '../client/types.js';
import { isApiError, isCodecError, isGone } from '../errors.js';
import { WatchLineDecoder } from './watch-line-decoder.js';
import { decodeAll } from './watch-line-decoder.test-helper.js';

/** mulberry32: a tiny seeded PRNG so that a failing split can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['plain', 'café é', '日本語', 'emoji 🎉🚀', 'mixed ü日🎉x', 'quote "q" \\ back', 'tab\tnew\\nline'];

function objectNumber(i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'default', resourceVersion: String(i) },
    data: { text: WORDS[i % WORDS.length]! },
  };
}

function objects(events: WatchEvent[]): unknown[] {
  return events.map((e) => (e.type === 'ERROR' ? e.error : e.object));
}

describe('WatchLineDecoder', () => {
  test('decodes every line of a single chunk into typed events', () => {
    const lines = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'].map((type, i) => JSON.stringify({ type, object: objectNumber(i) }));
    const events = decodeAll([Buffer.from(lines.join('\n') + '\n')]);
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'],
    );
    assert.deepEqual(objects(events), [0, 1, 2, 3].map(objectNumber));
  });

  test('gives the same events however the stream is cut into chunks (seeded random splits)', () => {
    const random = prng(20240601);
    for (let iteration = 0; iteration < 300; iteration++) {
      const count = 1 + Math.floor(random() * 20);
      const expected = Array.from({ length: count }, (_, i) => objectNumber(iteration * 31 + i));
      // Mix LF and CRLF endings and blank lines, as servers and proxies may.
      const text = expected
        .map((object, i) => JSON.stringify({ type: 'MODIFIED', object }) + (i % 3 === 0 ? '\r\n' : '\n') + (i % 5 === 0 ? '\n' : ''))
        .join('');
      const bytes = Buffer.from(text);
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; ) {
        const size = 1 + Math.floor(random() * (random() < 0.3 ? 4 : 200));
        chunks.push(bytes.subarray(at, at + size));
        at += size;
      }
      const events = decodeAll(chunks);
      assert.deepEqual(objects(events), expected, `iteration ${iteration}`);
    }
  });

  test('never corrupts a multibyte character split at any byte offset', () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'é', b: '日本', c: '🎉', d: 'aé日🎉z' } };
    const bytes = Buffer.from(JSON.stringify({ type: 'ADDED', object }) + '\n' + JSON.stringify({ type: 'DELETED', object }) + '\n');
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (const second of [cut, Math.min(bytes.length, cut + 1), Math.min(bytes.length, cut + 3)]) {
        const chunks = [bytes.subarray(0, cut), bytes.subarray(cut, second), bytes.subarray(second)];
        const events = decodeAll(chunks);
        assert.deepEqual(objects(events), [object, object], `cut at ${cut}/${second}`);
      }
    }
  });

  test('turns a malformed line into a CodecError event and keeps decoding the next lines', () => {
    const good = (i: number) => JSON.stringify({ type: 'ADDED', object: objectNumber(i) });
    const text = [good(1), '{"type":"ADDED","object":{"metadata":', good(2), 'not json at all', good(3)].join('\n') + '\n';
    const events = decodeAll([Buffer.from(text)]);
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'ERROR', 'ADDED', 'ERROR', 'ADDED'],
    );
    const second = events[1]!;
    const error = second.type === 'ERROR' ? second.error : undefined;
    assert.ok(isCodecError(error));
    assert.match((error as { input?: string }).input ?? '', /^\{"type":"ADDED"/);
    assert.deepEqual(objects([events[4]!]), [objectNumber(3)]);
  });

  test('turns an ERROR event with a 410 Status into an ApiError that isGone', () => {
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'too old resource version: 1 (5)',
      reason: 'Expired',
      code: 410,
    };
    const events = decodeAll([Buffer.from(JSON.stringify({ type: 'ERROR', object: status }) + '\n')]);
    assert.equal(events.length, 1);
    const event = events[0]!;
    assert.equal(event.type, 'ERROR');
    assert.ok(event.type === 'ERROR' && isApiError(event.error));
    assert.ok(event.type === 'ERROR' && isGone(event.error));
    assert.equal(event.type === 'ERROR' && event.error.message, 'too old resource version: 1 (5)');
  });

  test('reports unknown event types, missing objects and non-object lines as CodecErrors', () => {
    const lines = [
      JSON.stringify({ type: 'RENAMED', object: objectNumber(1) }),
      JSON.stringify({ type: 'ADDED' }),
      JSON.stringify({ type: 'MODIFIED', object: { kind: 'ConfigMap' } }),
      JSON.stringify({ type: 'ERROR', object: 'boom' }),
      '42',
      'null',
    ];
    const events = decodeAll([Buffer.from(lines.join('\n') + '\n')]);
    assert.equal(events.length, lines.length);
    for (const event of events) assert.ok(event.type === 'ERROR' && isCodecError(event.error), JSON.stringify(event));
  });

  test('reports an object event whose metadata has no name as a CodecError (a bookmark needs none)', () => {
    const lines = [
      JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: {} } }),
      JSON.stringify({ type: 'MODIFIED', object: { kind: 'ConfigMap', metadata: { name: '' } } }),
      JSON.stringify({ type: 'DELETED', object: { kind: 'ConfigMap', metadata: { namespace: 'default', name: 7 } } }),
      JSON.stringify({ type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '12' } } }),
    ];
    const events = decodeAll([Buffer.from(lines.join('\n') + '\n')]);
    assert.equal(events.length, 4);
    for (const event of events.slice(0, 3)) {
      assert.ok(event.type === 'ERROR' && isCodecError(event.error), JSON.stringify(event));
      assert.match((event.error as Error).message, /without metadata\.name/);
    }
    assert.equal(events[3]?.type, 'BOOKMARK');
  });

  test('fills in apiVersion and kind when the server leaves them out', () => {
    const decoder = new WatchLineDecoder({ apiVersion: 'example.com/v1', kind: 'Widget' });
    const line = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'w' } } }) + '\n';
    const events = decodeAll([Buffer.from(line)], decoder);
    assert.deepEqual(objects(events), [{ metadata: { name: 'w' }, apiVersion: 'example.com/v1', kind: 'Widget' }]);
  });

  test('decodes a last line without a newline at the end of the stream, and reports a truncated one', () => {
    const complete = JSON.stringify({ type: 'ADDED', object: objectNumber(7) });
    assert.deepEqual(objects(decodeAll([Buffer.from(complete.slice(0, 10)), Buffer.from(complete.slice(10))])), [objectNumber(7)]);
    const truncated = decodeAll([Buffer.from(complete.slice(0, 30))]);
    assert.equal(truncated.length, 1);
    const only = truncated[0]!;
    assert.ok(only.type === 'ERROR' && isCodecError(only.error));
  });

  test('skips a line longer than maxLineBytes with one CodecError and decodes the lines after it', () => {
    const decoder = new WatchLineDecoder({ maxLineBytes: 200 });
    const long = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'x'.repeat(500) } } });
    const good = JSON.stringify({ type: 'ADDED', object: objectNumber(1) });
    const bytes = Buffer.from(long + '\n' + good + '\n');
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 37) chunks.push(bytes.subarray(at, at + 37));
    const events = decodeAll(chunks, decoder);
    assert.deepEqual(
      events.map((e) => e.type),
      ['ERROR', 'ADDED'],
    );
    const first = events[0]!;
    assert.ok(first.type === 'ERROR' && isCodecError(first.error));
  });

  test('skips a line longer than maxLineBytes however it arrives: in one chunk, or across two that each fit', () => {
    const long = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'x'.repeat(300) } } });
    const good = JSON.stringify({ type: 'ADDED', object: objectNumber(1) });
    const bytes = Buffer.from(long + '\n' + good + '\n');
    const half = Math.floor(long.length / 2);
    for (const chunks of [[bytes], [bytes.subarray(0, half), bytes.subarray(half)]]) {
      const events = decodeAll(chunks, new WatchLineDecoder({ maxLineBytes: 200 }));
      assert.deepEqual(
        events.map((e) => e.type),
        ['ERROR', 'ADDED'],
        `${chunks.length} chunk(s)`,
      );
    }
  });

  test('ignores empty lines and lone carriage returns', () => {
    const line = JSON.stringify({ type: 'ADDED', object: objectNumber(2) });
    const events = decodeAll([Buffer.from(`\n\r\n${line}\r\n\n\r\n`)]);
    assert.deepEqual(objects(events), [objectNumber(2)]);
  });
});
