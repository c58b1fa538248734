/**
 * The string formats a Kubernetes API server checks in CRD schemas (kube-openapi's format
 * registry). Formats Kubernetes does not know are ignored by the real server, so
 * {@link kubernetesFormat} answers `undefined` for them; numeric formats (`int32`, `int64`,
 * `float`, `double`) are documentation only there too. The standard ones come from ajv-formats'
 * checks (fixed, reviewed expressions), the others are written here.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';

/** A format check on a string value. */
export type FormatCheck = (value: string) => boolean;

// Go's strfmt accepts durations such as `1h30m`, `300ms`, `2 days`, `1.5h`.
const goDuration =
  /^\s*[-+]?(\d+(\.\d+)?\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|sec|min|hr)\s*)+$/i;

const ipv4Part = String.raw`(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const ipv4 = new RegExp(`^${ipv4Part}(\\.${ipv4Part}){3}$`);

/** An ajv-formats check as a function. */
function standard(name: 'date-time' | 'date' | 'uri-reference' | 'email' | 'hostname' | 'ipv4' | 'ipv6' | 'byte'): FormatCheck {
  const format = fullFormats[name];
  if (format instanceof RegExp) return (value) => format.test(value);
  if (typeof format === 'function') return (value) => (format as (v: string) => boolean)(value);
  if (typeof format === 'object' && 'validate' in format) {
    const validate = format.validate;
    if (validate instanceof RegExp) return (value) => validate.test(value);
    return (value) => (validate as (v: string) => boolean)(value);
  }
  throw new Error(`no check for format ${name}`);
}

const matching =
  (re: RegExp): FormatCheck =>
  (value) =>
    re.test(value);

function cidr(s: string): boolean {
  const slash = s.lastIndexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  if (ipv4.test(ip)) return Number(bits) <= 32;
  return ip.includes(':') && /^[0-9a-f:.]+$/i.test(ip) && Number(bits) <= 128;
}

/** Format name (normalized like kube-openapi: lower case, no dashes) -> its check. */
const formatByNormalizedName: ReadonlyMap<string, FormatCheck> = new Map([
  ['datetime', standard('date-time')],
  ['date', standard('date')],
  ['duration', matching(goDuration)],
  ['uri', standard('uri-reference')],
  ['email', standard('email')],
  ['hostname', standard('hostname')],
  ['ipv4', standard('ipv4')],
  ['ipv6', standard('ipv6')],
  ['cidr', cidr],
  ['mac', matching(/^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$/i)],
  ['uuid', matching(/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i)],
  ['uuid3', matching(/^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i)],
  ['uuid4', matching(/^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i)],
  ['uuid5', matching(/^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i)],
  ['byte', standard('byte')],
  ['password', () => true],
  ['bsonobjectid', matching(/^[0-9a-f]{24}$/i)],
  ['hexcolor', matching(/^#?([0-9a-f]{3}|[0-9a-f]{6})$/i)],
  ['rgbcolor', matching(/^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/)],
  ['isbn10', (s) => isIsbn10(s.replace(/[\s-]/g, ''))],
  ['isbn13', (s) => isIsbn13(s.replace(/[\s-]/g, ''))],
  [
    'isbn',
    (s) => {
      const digits = s.replace(/[\s-]/g, '');
      return isIsbn10(digits) || isIsbn13(digits);
    },
  ],
  ['creditcard', (s) => /^\d{12,19}$/.test(s.replace(/[\s-]/g, '')) && luhn(s.replace(/[\s-]/g, ''))],
  ['ssn', matching(/^\d{3}[- ]?\d{2}[- ]?\d{4}$/)],
]);

/** The check for a schema `format`, or `undefined` when Kubernetes ignores it. */
export function kubernetesFormat(format: string): FormatCheck | undefined {
  return formatByNormalizedName.get(format.toLowerCase().replace(/[-_]/g, ''));
}

function isIsbn10(s: string): boolean {
  if (!/^\d{9}[\dX]$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (s[i] === 'X' ? 10 : Number(s[i])) * (10 - i);
  return sum % 11 === 0;
}

function isIsbn13(s: string): boolean {
  if (!/^\d{13}$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(s[i]) * (i % 2 === 0 ? 1 : 3);
  return sum % 10 === 0;
}

function luhn(s: string): boolean {
  let sum = 0;
  for (let i = 0; i < s.length; i++) {
    let d = Number(s[s.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
