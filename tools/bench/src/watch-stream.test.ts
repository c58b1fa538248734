import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SENT_AT_ANNOTATION, TARGET_OBJECT_BYTES } from './bench-objects.js';
import { SENT_AT_PLACEHOLDER, generateWatchStream, lineAt, listPage, stampSentAt } from './watch-stream.js';

interface Line {
  type: string;
  object: { metadata: { name: string; resourceVersion: string; managedFields: unknown[] }; data: Record<string, string> };
}

describe('generateWatchStream', () => {
  const stream = generateWatchStream({ objects: 50, events: 300, seed: 1 });

  test('lists every object in one ConfigMapList at the list resourceVersion', () => {
    const list = JSON.parse(stream.listBody.toString()) as { kind: string; metadata: { resourceVersion: string }; items: Line['object'][] };
    assert.equal(list.kind, 'ConfigMapList');
    assert.equal(list.items.length, 50);
    assert.equal(list.metadata.resourceVersion, String(stream.listResourceVersion));
    assert.equal(new Set(list.items.map((i) => i.metadata.name)).size, 50);
    assert.ok(list.items.every((i) => !('apiVersion' in i) && !('kind' in i)), 'list items carry no apiVersion/kind, as kube-apiserver sends them');
  });

  test('pages a list with continue tokens and remainingItemCount until the last page', () => {
    const names: string[] = [];
    let from = 0;
    for (let page = 0; page < 10; page++) {
      const body = JSON.parse(listPage(stream.itemJson, stream.listResourceVersion, from, from + 20).toString()) as {
        metadata: { continue?: string; remainingItemCount?: number };
        items: Line['object'][];
      };
      names.push(...body.items.map((i) => i.metadata.name));
      if (body.metadata.continue === undefined) {
        assert.equal(body.metadata.remainingItemCount, undefined);
        break;
      }
      assert.equal(body.metadata.remainingItemCount, 50 - names.length);
      from = Number(body.metadata.continue);
    }
    assert.equal(names.length, 50);
    assert.equal(new Set(names).size, 50);
  });

  test('makes objects of about 1 KB, each with two managedFields entries', () => {
    assert.ok(Math.abs(stream.meanObjectBytes - TARGET_OBJECT_BYTES) < 3, `mean ${stream.meanObjectBytes}`);
    for (let i = 0; i < stream.addedLines.count; i++) {
      const line = lineAt(stream.addedLines, i);
      const event = JSON.parse(line.toString()) as Line;
      assert.equal(event.type, 'ADDED');
      assert.equal(event.object.metadata.managedFields.length, 2);
      const size = Buffer.byteLength(JSON.stringify(event.object));
      assert.ok(size >= TARGET_OBJECT_BYTES - 2 && size <= TARGET_OBJECT_BYTES, `object ${i} is ${size} bytes`);
      assert.ok(event.object.data['config.yaml']!.length > 40, 'room is left for data');
    }
  });

  test('writes one newline-terminated MODIFIED line per event with consecutive resourceVersions ending at the marker', () => {
    assert.equal(stream.eventLines.count, 300);
    for (let i = 0; i < 300; i++) {
      const line = lineAt(stream.eventLines, i);
      assert.equal(line[line.length - 1], 10);
      assert.equal(line.indexOf(10), line.length - 1, 'exactly one newline per line');
      const event = JSON.parse(line.toString()) as Line;
      assert.equal(event.type, 'MODIFIED');
      assert.equal(event.object.metadata.resourceVersion, String(stream.listResourceVersion + 1 + i));
    }
    const last = JSON.parse(lineAt(stream.eventLines, 299).toString()) as Line;
    assert.equal(last.object.metadata.resourceVersion, stream.markerResourceVersion);
  });

  test('is byte-identical for the same seed and different for another', () => {
    const again = generateWatchStream({ objects: 50, events: 300, seed: 1 });
    const other = generateWatchStream({ objects: 50, events: 300, seed: 2 });
    assert.ok(again.eventLines.bytes.equals(stream.eventLines.bytes));
    assert.ok(again.listBody.equals(stream.listBody));
    assert.ok(!other.eventLines.bytes.equals(stream.eventLines.bytes));
  });

  test('grows its buffer when the lines outgrow the first estimate', () => {
    const big = generateWatchStream({ objects: 3, events: 2000, seed: 3 });
    assert.equal(big.eventLines.count, 2000);
    assert.equal(big.eventLines.offsets[2000], big.eventLines.bytes.length);
  });
});

describe('send-time stamps of a paced stream', () => {
  const stream = generateWatchStream({ objects: 20, events: 50, seed: 3, sentAtPlaceholder: true });
  const annotationsOf = (line: Buffer): Record<string, string> =>
    (JSON.parse(line.toString()) as { object: { metadata: { annotations: Record<string, string> } } }).object.metadata.annotations;

  test('every event carries the placeholder; the list does not', () => {
    for (let i = 0; i < stream.eventLines.count; i++) assert.equal(annotationsOf(lineAt(stream.eventLines, i))[SENT_AT_ANNOTATION], SENT_AT_PLACEHOLDER);
    assert.ok(!stream.listBody.includes(SENT_AT_PLACEHOLDER));
  });

  test('stamping writes the time into a copy of the same length that is still valid JSON', () => {
    const line = lineAt(stream.eventLines, 7);
    const before = Buffer.from(line);
    const stamped = stampSentAt(line, 1764052345123.457);
    assert.equal(stamped.length, line.length);
    assert.equal(annotationsOf(stamped)[SENT_AT_ANNOTATION], '1764052345123.457');
    assert.ok(line.equals(before), 'the pre-generated line is left as it was');
  });

  test('refuses a line without the placeholder and a time that does not fit it', () => {
    const plain = generateWatchStream({ objects: 2, events: 1, seed: 3 });
    assert.throws(() => stampSentAt(lineAt(plain.eventLines, 0), 1), /no send-time placeholder/);
    assert.throws(() => stampSentAt(lineAt(stream.eventLines, 0), 1e14), RangeError);
  });
});
