/**
 * Framing of write-ahead-log records: one line per record,
 *
 *     <byte length of json> <crc32 of json, 8 hex digits> <json>\n
 *
 * The length finds the end of a record without scanning its JSON, the CRC-32 catches bit rot and
 * torn writes that happen to end in a newline, and the terminating newline catches a record cut
 * short exactly after its JSON. Decoding stops at the first record that fails any check.
 */
import { crc32 } from 'node:zlib';

/** One logged write. `rv` is the global resourceVersion the write produced. */
export interface WalRecord {
  rv: number;
  op: 'put' | 'delete';
  /** The storage key of the object. */
  key: string;
  /** The stored object (for `put`; optional for `delete`). */
  object?: unknown;
  /** `object` as JSON when the caller has it: written as it is rather than serialized again. */
  objectJson?: string;
}

/** Where and why decoding stopped. */
export interface WalCorruption {
  /** Byte offset of the first bad record: everything before it is valid. */
  offset: number;
  /** What was wrong, e.g. `truncated record (EOF after 12 of 80 bytes)` or `checksum mismatch`. */
  reason: string;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;
const maxLengthDigits = 10;

/** Encodes one record as a framed line. */
export function encodeRecord(record: WalRecord): Buffer {
  const { rv, op, key, object, objectJson } = record;
  const text =
    object === undefined
      ? JSON.stringify({ rv, op, key })
      : objectJson === undefined
        ? JSON.stringify({ rv, op, key, object })
        : `{"rv":${JSON.stringify(rv)},"op":${JSON.stringify(op)},"key":${JSON.stringify(key)},"object":${objectJson}}`;
  const json = Buffer.from(text);
  const header = Buffer.from(`${json.length} ${crc32(json).toString(16).padStart(8, '0')} `);
  const line = Buffer.allocUnsafe(header.length + json.length + 1);
  header.copy(line, 0);
  json.copy(line, header.length);
  line[line.length - 1] = NEWLINE;
  return line;
}

/** The records of a log file (and the encoded size of each), the length of its valid prefix, and the corruption that ended it, if any. */
export function decodeRecords(buf: Buffer): { records: WalRecord[]; recordBytes: number[]; validLength: number; corruption?: WalCorruption } {
  const records: WalRecord[] = [];
  const recordBytes: number[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const result = decodeOne(buf, offset);
    if (typeof result === 'string') return { records, recordBytes, validLength: offset, corruption: { offset, reason: result } };
    records.push(result.record);
    recordBytes.push(result.next - offset);
    offset = result.next;
  }
  return { records, recordBytes, validLength: offset };
}

/** What follows a bad record: the intact records that can still be found after it, if any. */
export interface IntactTail {
  /** How many intact records follow the bad one (0: the bad record is a torn tail). */
  count: number;
  /** Byte offset of the first of them. */
  firstOffset: number;
  /** The highest resourceVersion among them (0 when none). */
  maxRv: number;
}

/**
 * Looks past a bad record for intact ones: resynchronises at each line start after `from` and
 * decodes from there. A crash mid-append leaves nothing intact after the torn record; bit rot or
 * an overwrite in the middle of the file does.
 */
export function findIntactRecordsAfter(buf: Buffer, from: number): IntactTail {
  const tail: IntactTail = { count: 0, firstOffset: -1, maxRv: 0 };
  let lineStart = buf.indexOf(NEWLINE, from) + 1;
  while (lineStart > 0 && lineStart < buf.length) {
    const result = decodeOne(buf, lineStart);
    if (typeof result === 'string') {
      lineStart = buf.indexOf(NEWLINE, lineStart) + 1;
      continue;
    }
    if (tail.count === 0) tail.firstOffset = lineStart;
    tail.count++;
    tail.maxRv = Math.max(tail.maxRv, result.record.rv);
    lineStart = result.next;
  }
  return tail;
}

function decodeOne(buf: Buffer, start: number): { record: WalRecord; next: number } | string {
  const firstSpace = buf.indexOf(SPACE, start);
  const headerEnd = firstSpace < 0 ? buf.length : firstSpace;
  if (headerEnd - start > maxLengthDigits || (firstSpace >= 0 && headerEnd === start)) return 'malformed record header (bad length)';
  const lengthText = buf.toString('latin1', start, headerEnd);
  if (!/^[0-9]*$/.test(lengthText)) return 'malformed record header (bad length)';
  if (firstSpace < 0) return `truncated record (EOF in header after ${buf.length - start} bytes)`;
  const length = Number(lengthText);

  const crcStart = firstSpace + 1;
  const jsonStart = crcStart + 9;
  if (jsonStart > buf.length) {
    if (!/^[0-9a-f]*$/.test(buf.toString('latin1', crcStart, buf.length))) return 'malformed record header (bad checksum)';
    return `truncated record (EOF in header after ${buf.length - start} bytes)`;
  }
  const crcText = buf.toString('latin1', crcStart, crcStart + 8);
  if (!/^[0-9a-f]{8}$/.test(crcText) || buf[crcStart + 8] !== SPACE) return 'malformed record header (bad checksum)';

  const jsonEnd = jsonStart + length;
  if (jsonEnd + 1 > buf.length) {
    return `truncated record (EOF after ${buf.length - start} of ${jsonEnd + 1 - start} bytes)`;
  }
  if (buf[jsonEnd] !== NEWLINE) return 'missing record terminator';
  const json = buf.subarray(jsonStart, jsonEnd);
  if (crc32(json) !== Number.parseInt(crcText, 16)) return 'checksum mismatch';

  let parsed: unknown;
  try {
    parsed = JSON.parse(json.toString('utf8'));
  } catch {
    return 'invalid JSON in record';
  }
  const record = asRecord(parsed);
  if (record === undefined) return 'invalid record (needs rv, op put|delete, key, object for put)';
  return { record, next: jsonEnd + 1 };
}

function asRecord(value: unknown): WalRecord | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { rv, op, key, object } = value as Record<string, unknown>;
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv < 0) return undefined;
  if ((op !== 'put' && op !== 'delete') || typeof key !== 'string') return undefined;
  if (op === 'put' && object === undefined) return undefined;
  return object === undefined ? { rv, op, key } : { rv, op, key, object };
}
