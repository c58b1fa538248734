/**
 * Kubernetes timestamps on the wire. `metav1.Time` is RFC 3339 with second precision;
 * `metav1.MicroTime` (Lease `acquireTime`/`renewTime`, Event `eventTime`) has exactly six
 * fractional digits, and the API server rejects any other precision.
 */
import { DateTime } from 'luxon';
import { CodecError } from './errors.js';

// Go's RFC3339Micro layout: exactly six digits, then `Z` or a numeric offset.
const microTimePattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{6})(Z|[+-]\d{2}:\d{2})$/;
// RFC 3339 as Go's time.RFC3339 parses it: any fraction is allowed.
const timePattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

function toJsDate(date: Date | DateTime): Date {
  const js = DateTime.isDateTime(date) ? date.toJSDate() : date;
  if (Number.isNaN(js.getTime())) throw new CodecError('cannot format time: invalid date');
  const year = js.getUTCFullYear();
  if (year < 0 || year > 9999) throw new CodecError(`cannot format time: year ${year} is outside 0000-9999`);
  return js;
}

/**
 * Formats a `MicroTime`: RFC 3339 in UTC with exactly six fractional digits, e.g.
 * `2026-01-02T03:04:05.123000Z`. JavaScript dates hold milliseconds, so the last three digits are 0.
 * @throws CodecError for an invalid date or a year outside 0000-9999.
 */
export function formatMicroTime(date: Date | DateTime): string {
  const iso = toJsDate(date).toISOString(); // YYYY-MM-DDTHH:mm:ss.sssZ
  return `${iso.slice(0, 23)}000Z`;
}

/**
 * Formats a `Time`: RFC 3339 in UTC with second precision, e.g. `2026-01-02T03:04:05Z`.
 * @throws CodecError for an invalid date or a year outside 0000-9999.
 */
export function formatTime(date: Date | DateTime): string {
  const iso = toJsDate(date).toISOString();
  return `${iso.slice(0, 19)}Z`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function toDate(match: RegExpExecArray, fraction: string): Date | undefined {
  const [, y, mo, d, h, mi, s, , zone] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > daysInMonth(year, month)) return undefined;
  const ms = Math.floor(Number(`0.${fraction || '0'}`) * 1000);
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, ms);
  let offsetMinutes = 0;
  if (zone !== undefined && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = sign * (oh * 60 + om);
  }
  return new Date(utc.getTime() - offsetMinutes * 60_000);
}

/** True when `text` is a valid `MicroTime`: RFC 3339 with exactly six fractional digits and `Z` or an offset. */
export function isMicroTime(text: string): boolean {
  const match = microTimePattern.exec(text);
  return match !== null && toDate(match, match[7] ?? '') !== undefined;
}

/**
 * Parses a `MicroTime`. The result has millisecond precision (the last three digits are dropped).
 * @throws CodecError unless the text has exactly six fractional digits (see {@link isMicroTime}).
 */
export function parseMicroTime(text: string): Date {
  const match = microTimePattern.exec(text);
  const date = match ? toDate(match, match[7] ?? '') : undefined;
  if (!date) {
    throw new CodecError(`invalid MicroTime ${JSON.stringify(text)}: expected RFC 3339 with exactly 6 fractional digits, e.g. 2026-01-02T03:04:05.123456Z`, {
      input: text,
    });
  }
  return date;
}

/**
 * Parses a `Time` (RFC 3339; a fraction of up to nine digits is accepted and cut to milliseconds).
 * @throws CodecError for anything else.
 */
export function parseTime(text: string): Date {
  const match = timePattern.exec(text);
  const date = match ? toDate(match, match[7] ?? '') : undefined;
  if (!date) throw new CodecError(`invalid Time ${JSON.stringify(text)}: expected RFC 3339, e.g. 2026-01-02T03:04:05Z`, { input: text });
  return date;
}
