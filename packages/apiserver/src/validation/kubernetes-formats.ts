/**
 * The string formats a Kubernetes API server checks in CRD schemas (kube-openapi's format
 * registry), registered on an Ajv instance. Formats Kubernetes does not know are ignored by the
 * real server, so {@link kubernetesFormatName} maps them to `undefined` and the converter drops
 * them; numeric formats (`int32`, `int64`, `float`, `double`) are documentation only there too.
 */
import type { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';

// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is the module.
const addFormats = addFormatsImport.default;

// Go's strfmt accepts durations such as `1h30m`, `300ms`, `2 days`, `1.5h`.
const goDuration =
  /^\s*[-+]?(\d+(\.\d+)?\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|sec|min|hr)\s*)+$/i;

/** Format name (normalized like kube-openapi: lower case, no dashes) -> Ajv format name. */
const formatByNormalizedName: ReadonlyMap<string, string> = new Map([
  ['datetime', 'date-time'],
  ['date', 'date'],
  ['duration', 'k8s-duration'],
  ['uri', 'uri-reference'],
  ['email', 'email'],
  ['hostname', 'hostname'],
  ['ipv4', 'ipv4'],
  ['ipv6', 'ipv6'],
  ['cidr', 'k8s-cidr'],
  ['mac', 'k8s-mac'],
  ['uuid', 'k8s-uuid'],
  ['uuid3', 'k8s-uuid3'],
  ['uuid4', 'k8s-uuid4'],
  ['uuid5', 'k8s-uuid5'],
  ['byte', 'byte'],
  ['password', 'k8s-password'],
  ['bsonobjectid', 'k8s-bsonobjectid'],
  ['hexcolor', 'k8s-hexcolor'],
  ['rgbcolor', 'k8s-rgbcolor'],
  ['isbn', 'k8s-isbn'],
  ['isbn10', 'k8s-isbn10'],
  ['isbn13', 'k8s-isbn13'],
  ['creditcard', 'k8s-creditcard'],
  ['ssn', 'k8s-ssn'],
]);

/** The Ajv format to check for a schema `format`, or `undefined` when Kubernetes ignores it. */
export function kubernetesFormatName(format: string): string | undefined {
  return formatByNormalizedName.get(format.toLowerCase().replace(/[-_]/g, ''));
}

const ipv4Part = String.raw`(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const ipv4 = `${ipv4Part}(\\.${ipv4Part}){3}`;

/** Registers every Kubernetes format on `ajv`. */
export function addKubernetesFormats(ajv: Ajv): void {
  addFormats(ajv, ['date-time', 'date', 'uri-reference', 'email', 'hostname', 'ipv4', 'ipv6', 'byte']);
  ajv.addFormat('k8s-duration', goDuration);
  ajv.addFormat('k8s-cidr', (s: string) => {
    const slash = s.lastIndexOf('/');
    if (slash < 0) return false;
    const ip = s.slice(0, slash);
    const bits = s.slice(slash + 1);
    if (!/^\d{1,3}$/.test(bits)) return false;
    if (new RegExp(`^${ipv4}$`).test(ip)) return Number(bits) <= 32;
    return ip.includes(':') && /^[0-9a-f:.]+$/i.test(ip) && Number(bits) <= 128;
  });
  ajv.addFormat('k8s-mac', /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$/i);
  ajv.addFormat('k8s-uuid', /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i);
  ajv.addFormat('k8s-uuid3', /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i);
  ajv.addFormat('k8s-uuid4', /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i);
  ajv.addFormat('k8s-uuid5', /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i);
  ajv.addFormat('k8s-password', /^/);
  ajv.addFormat('k8s-bsonobjectid', /^[0-9a-f]{24}$/i);
  ajv.addFormat('k8s-hexcolor', /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i);
  ajv.addFormat('k8s-rgbcolor', /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/);
  ajv.addFormat('k8s-isbn10', (s: string) => isIsbn10(s.replace(/[\s-]/g, '')));
  ajv.addFormat('k8s-isbn13', (s: string) => isIsbn13(s.replace(/[\s-]/g, '')));
  ajv.addFormat('k8s-isbn', (s: string) => {
    const digits = s.replace(/[\s-]/g, '');
    return isIsbn10(digits) || isIsbn13(digits);
  });
  ajv.addFormat('k8s-creditcard', (s: string) => /^\d{12,19}$/.test(s.replace(/[\s-]/g, '')) && luhn(s.replace(/[\s-]/g, '')));
  ajv.addFormat('k8s-ssn', /^\d{3}[- ]?\d{2}[- ]?\d{4}$/);
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
