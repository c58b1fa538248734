import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { formatMicroTime, formatTime, isMicroTime, parseMicroTime, parseTime } from './micro-time.js';
import { isCodecError } from './errors.js';

describe('MicroTime', () => {
  const date = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 123));

  test('formats a Date in UTC with exactly six fractional digits', () => {
    assert.equal(formatMicroTime(date), '2026-01-02T03:04:05.123000Z');
    assert.equal(formatMicroTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 0))), '2026-01-02T03:04:05.000000Z');
  });

  test('formats a luxon DateTime in any zone as UTC', () => {
    const dt = DateTime.fromISO('2026-01-02T05:04:05.123+02:00', { setZone: true });
    assert.equal(formatMicroTime(dt), '2026-01-02T03:04:05.123000Z');
  });

  test('parses what it formats', () => {
    assert.equal(parseMicroTime(formatMicroTime(date)).getTime(), date.getTime());
  });

  test('parses six digits, cutting to milliseconds, and numeric offsets', () => {
    assert.equal(parseMicroTime('2026-01-02T03:04:05.123456Z').toISOString(), '2026-01-02T03:04:05.123Z');
    assert.equal(parseMicroTime('2026-01-02T05:04:05.000000+02:00').toISOString(), '2026-01-02T03:04:05.000Z');
    assert.equal(parseMicroTime('2024-02-29T00:00:00.000000Z').toISOString(), '2024-02-29T00:00:00.000Z');
  });

  const rejected = [
    '2026-01-02T03:04:05.123Z',
    '2026-01-02T03:04:05Z',
    '2026-01-02T03:04:05.1234567Z',
    '2026-01-02 03:04:05.123456Z',
    '2026-01-02T03:04:05.123456',
    '2026-13-02T03:04:05.123456Z',
    '2025-02-29T03:04:05.123456Z',
    '2026-01-02T24:04:05.123456Z',
    '2026-01-02T03:04:05.123456+25:00',
    '',
  ];
  for (const text of rejected) {
    test(`rejects ${JSON.stringify(text)}`, () => {
      assert.equal(isMicroTime(text), false);
      assert.throws(() => parseMicroTime(text), (err) => isCodecError(err) && err.message.includes('exactly 6 fractional digits'));
    });
  }

  test('isMicroTime accepts the strict form', () => {
    assert.ok(isMicroTime('2026-01-02T03:04:05.123456Z'));
    assert.ok(isMicroTime('2026-01-02T03:04:05.123456-07:00'));
  });

  test('formatting an invalid date throws a CodecError', () => {
    assert.throws(() => formatMicroTime(new Date(Number.NaN)), isCodecError);
    assert.throws(() => formatTime(DateTime.invalid('test')), isCodecError);
  });
});

describe('Time', () => {
  test('formats with second precision in UTC', () => {
    assert.equal(formatTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 999))), '2026-01-02T03:04:05Z');
    assert.equal(formatTime(DateTime.fromISO('2026-01-02T04:04:05+01:00')), '2026-01-02T03:04:05Z');
  });

  test('parses RFC 3339 with or without a fraction', () => {
    assert.equal(parseTime('2026-01-02T03:04:05Z').toISOString(), '2026-01-02T03:04:05.000Z');
    assert.equal(parseTime('2026-01-02T03:04:05.5+01:00').toISOString(), '2026-01-02T02:04:05.500Z');
  });

  test('rejects text that is not RFC 3339', () => {
    assert.throws(() => parseTime('2026-01-02'), isCodecError);
    assert.throws(() => parseTime('yesterday'), isCodecError);
  });
});
