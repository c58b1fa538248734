import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { decodeRecords, encodeRecord, findIntactRecordsAfter } from './wal-record-codec.js';
import type { WalRecord } from './wal-record-codec.js';

const records: WalRecord[] = [
  { rv: 1, op: 'put', key: '/v1/namespaces/default', object: { kind: 'Namespace', metadata: { name: 'default' } } },
  { rv: 2, op: 'put', key: '/v1/configmaps/default/cm', object: { data: { greeting: 'héllo ✓\nnew line' } } },
  { rv: 5, op: 'delete', key: '/v1/configmaps/default/cm' },
];

const encoded = (rs: WalRecord[]): Buffer => Buffer.concat(rs.map(encodeRecord));

describe('WAL record framing', () => {
  test('round-trips records, multi-byte characters and newlines in values included', () => {
    assert.deepEqual(decodeRecords(encoded(records)), {
      records,
      recordBytes: records.map((r) => encodeRecord(r).length),
      validLength: encoded(records).length,
    });
  });

  test('writes one line per record: length, crc32 and JSON', () => {
    const line = encodeRecord(records[2]!).toString();
    assert.match(line, /^\d+ [0-9a-f]{8} \{.*\}\n$/);
    assert.equal(line.split('\n').length, 2);
  });

  test('keeps the valid prefix when the last record is cut at any byte', () => {
    const prefix = encoded(records.slice(0, 2));
    const last = encodeRecord(records[2]!);
    for (let cut = 1; cut < last.length; cut++) {
      const result = decodeRecords(Buffer.concat([prefix, last.subarray(0, cut)]));
      assert.deepEqual(result.records, records.slice(0, 2), `cut at ${cut}`);
      assert.equal(result.validLength, prefix.length, `cut at ${cut}`);
      assert.equal(result.corruption?.offset, prefix.length, `cut at ${cut}`);
      assert.match(result.corruption?.reason ?? '', /truncated/, `cut at ${cut}`);
    }
  });

  test('detects a flipped bit in the JSON with the checksum', () => {
    const buf = encoded(records);
    const second = encodeRecord(records[0]!).length;
    const at = buf.indexOf('greeting', second);
    buf[at] = 'G'.charCodeAt(0);
    const result = decodeRecords(buf);
    assert.deepEqual(result.records, records.slice(0, 1));
    assert.deepEqual(result.corruption, { offset: second, reason: 'checksum mismatch' });
  });

  test('detects a damaged header and a missing terminator', () => {
    const good = encodeRecord(records[0]!);
    assert.match(decodeRecords(Buffer.concat([good, Buffer.from('garbage\n')])).corruption?.reason ?? '', /malformed record header/);
    assert.match(decodeRecords(Buffer.concat([good, Buffer.from('12 zzzzzzzz {}\n')])).corruption?.reason ?? '', /bad checksum/);
    const noNewline = Buffer.from(encodeRecord(records[1]!));
    noNewline[noNewline.length - 1] = 0x20;
    assert.equal(decodeRecords(Buffer.concat([good, noNewline, good])).corruption?.reason, 'missing record terminator');
  });

  test('rejects well-framed JSON that is not a record', () => {
    const json = Buffer.from(JSON.stringify({ rv: 'one', op: 'put', key: 'k', object: {} }));
    const framed = Buffer.from(`${json.length} ${crc32(json).toString(16).padStart(8, '0')} ${json.toString()}\n`);
    assert.match(decodeRecords(framed).corruption?.reason ?? '', /invalid record/);
  });

  test('finds the intact records after a damaged one, and none after a torn tail', () => {
    const whole = encoded(records);
    const second = encodeRecord(records[0]!).length;
    const damaged = Buffer.from(whole);
    damaged[second + 20] = damaged[second + 20] === 0x41 ? 0x42 : 0x41;
    assert.deepEqual(findIntactRecordsAfter(damaged, second), { count: 1, firstOffset: whole.length - encodeRecord(records[2]!).length, maxRv: 5 });
    assert.deepEqual(findIntactRecordsAfter(whole.subarray(0, whole.length - 5), second + encodeRecord(records[1]!).length), { count: 0, firstOffset: -1, maxRv: 0 });
  });

  test('decodes an empty file as no records', () => {
    assert.deepEqual(decodeRecords(Buffer.alloc(0)), { records: [], recordBytes: [], validLength: 0 });
  });
});

