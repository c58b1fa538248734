/**
 * Properties of the watch line decoder under random chunking and garbage (fast-check): however
 * the bytes are cut (also inside a multibyte character or a CRLF), the same events come out; each
 * garbage line becomes exactly one CodecError and the lines around it decode unchanged; an over-long
 * line is skipped with one error; decoding never throws.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isCodecError } from '../errors.js';
import { WatchLineDecoder } from './watch-line-decoder.js';
import { decodeAll } from './watch-line-decoder.test-helper.js';

/** A valid event line's content: any text in the object, also multibyte characters and escapes. */
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.constantFrom('日本語', '🎉🚀', 'ü', '"\\\n\t'));
const event = fc.record({
  type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED'),
  object: fc.record({
    apiVersion: fc.constant('v1'),
    kind: fc.constant('ConfigMap'),
    metadata: fc.record({ name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), namespace: fc.constant('default'), resourceVersion: fc.nat().map(String) }),
    data: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), text, { maxKeys: 3 }),
  }),
});

/** A line that is no event: it must give one CodecError, whatever its bytes. */
const garbage: fc.Arbitrary<Buffer> = fc.oneof(
  // A valid line cut short: a proper prefix of a JSON object is never JSON.
  event.chain((e) => {
    const line = JSON.stringify(e);
    return fc.integer({ min: 1, max: line.length - 1 }).map((n) => Buffer.from(line.slice(0, n)));
  }),
  // Bytes that are not UTF-8 (0xff never is), without a newline.
  fc.uint8Array({ maxLength: 30 }).map((bytes) => Buffer.from([0xff, ...bytes.filter((b) => b !== 10)])),
  // JSON that is no event.
  fc.constantFrom('42', '"text"', 'null', '[]', '{}', '{"type":"ADDED"}', '{"type":"NOPE","object":{"metadata":{"name":"x"}}}', '{"type":"MODIFIED","object":{"metadata":{}}}').map((s) => Buffer.from(s)),
);

type Piece = { kind: 'event'; value: unknown; bytes: Buffer } | { kind: 'garbage'; bytes: Buffer };

/** A valid line, and the event expected from it (as plain JSON: generated objects may lack a prototype). */
function eventPiece(e: unknown): Piece {
  const line = JSON.stringify(e);
  return { kind: 'event', value: JSON.parse(line) as unknown, bytes: Buffer.from(line) };
}

const piece: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 3, arbitrary: event.map(eventPiece) },
  { weight: 1, arbitrary: garbage.map((bytes): Piece => ({ kind: 'garbage', bytes })) },
);

/** The stream: lines ended by LF or CRLF, the last one sometimes without a newline. */
function stream(pieces: readonly Piece[], crlf: boolean[], lastNewline: boolean): Buffer {
  const parts: Buffer[] = [];
  pieces.forEach((p, i) => {
    parts.push(p.bytes);
    if (i < pieces.length - 1 || lastNewline) parts.push(Buffer.from(crlf[i % crlf.length] ? '\r\n' : '\n'));
  });
  return Buffer.concat(parts);
}

/** Cuts `bytes` at the given fractions of its length (any byte offset: inside characters too). */
function cut(bytes: Buffer, fractions: readonly number[]): Buffer[] {
  const offsets = [...new Set(fractions.map((f) => Math.floor(f * bytes.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const o of offsets) {
    chunks.push(bytes.subarray(start, o));
    start = o;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

const fractions = fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { maxLength: 12 });

describe('WatchLineDecoder properties', () => {
  test('any chunking of valid lines gives the events written, in order', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 8 }), fractions, fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }), fc.boolean(), (events, cuts, crlf, lastNewline) => {
        const pieces = events.map(eventPiece);
        const out = decodeAll(cut(stream(pieces, crlf, lastNewline), cuts));
        assert.deepEqual(out, pieces.map((p) => (p.kind === 'event' ? p.value : undefined)));
      }),
      { numRuns: 400 },
    );
  });

  test('each garbage line gives exactly one CodecError, and the valid lines around it decode unchanged', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), fractions, fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }), (pieces, cuts, crlf) => {
        const out = decodeAll(cut(stream(pieces, crlf, true), cuts));
        assert.equal(out.length, pieces.length);
        pieces.forEach((p, i) => {
          const e = out[i]!;
          if (p.kind === 'event') assert.deepEqual(e, p.value);
          else assert.ok(e.type === 'ERROR' && isCodecError(e.error), `garbage ${JSON.stringify(p.bytes.toString())} gave ${JSON.stringify(e)}`);
        });
      }),
      { numRuns: 400 },
    );
  });

  test('a line longer than maxLineBytes is skipped with one CodecError; the lines after it decode', () => {
    const maxLineBytes = 120;
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 8 }), fractions, (events, cuts) => {
        const pieces = events.map(eventPiece);
        const out = decodeAll(cut(stream(pieces, [false], true), cuts), new WatchLineDecoder({ maxLineBytes }));
        assert.equal(out.length, pieces.length);
        pieces.forEach((p, i) => {
          const e = out[i]!;
          if (p.bytes.length > maxLineBytes) assert.ok(e.type === 'ERROR' && isCodecError(e.error));
          else assert.deepEqual(e, p.kind === 'event' ? p.value : undefined);
        });
      }),
      { numRuns: 300 },
    );
  });
});
