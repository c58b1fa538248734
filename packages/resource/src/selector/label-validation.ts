/**
 * Syntax of label keys and values, as the Kubernetes API validates them. Shared by the selector
 * parsers, the API server (validating `metadata.labels`) and finalizer-name checks.
 */

const nameMaxLength = 63;
const prefixMaxLength = 253;
// A name part: alphanumeric at both ends, `-`, `_`, `.` inside.
const namePart = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
// A DNS-1123 subdomain: lower-case alphanumeric labels joined by dots, `-` inside a label.
const dnsSubdomain = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Why `key` is not a valid qualified name (`name` or `prefix/name`, the syntax of label keys,
 * annotation keys and finalizers), or `undefined` when it is valid.
 */
export function qualifiedNameProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  let name = key;
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    name = key.slice(slash + 1);
    if (prefix === '') return 'prefix part must be non-empty';
    if (prefix.length > prefixMaxLength) return `prefix part must be no more than ${prefixMaxLength} characters`;
    if (!dnsSubdomain.test(prefix)) return 'prefix part must be a lowercase DNS subdomain (e.g. example.com)';
    if (name.includes('/')) return "a qualified name may contain at most one '/'";
  }
  if (name === '') return 'name part must be non-empty';
  if (name.length > nameMaxLength) return `name part must be no more than ${nameMaxLength} characters`;
  if (!namePart.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Why `value` is not a valid label value, or `undefined` when it is valid. The empty string is valid. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > nameMaxLength) return `must be no more than ${nameMaxLength} characters`;
  if (!namePart.test(value)) {
    return "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** True when `key` is a valid label key (a qualified name with an optional DNS prefix). */
export function isValidLabelKey(key: string): boolean {
  return qualifiedNameProblem(key) === undefined;
}

/** True when `value` is a valid label value (at most 63 characters; may be empty). */
export function isValidLabelValue(value: string): boolean {
  return labelValueProblem(value) === undefined;
}
