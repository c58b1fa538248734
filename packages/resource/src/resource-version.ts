/**
 * Ordering of resourceVersions (KEP-5504, "comparable resource version", GA in Kubernetes 1.35).
 *
 * A resourceVersion is an opaque string to clients, except that since 1.35 a conforming server's
 * resourceVersions of one resource are decimal integers that grow with every write, so two of them
 * can be ordered. The rules, as apimachinery's `CompareResourceVersion`: a comparable resourceVersion
 * is a positive integer written with digits only and no leading zero (so "0", the list/watch
 * "any version" value, is not one), of any length (never parsed into a number: compare lengths,
 * then digits). Anything else is not comparable, and callers must then fall back to what they did
 * before (treat the versions as unordered). Comparing versions of different resources means nothing.
 */

const COMPARABLE = /^[1-9][0-9]*$/;

/** True when `rv` follows KEP-5504's format (a positive decimal integer without leading zeros). */
export function isComparableResourceVersion(rv: string | undefined): rv is string {
  return rv !== undefined && COMPARABLE.test(rv);
}

/**
 * Orders two resourceVersions of the same resource: -1 when `a` is older, 0 when equal, 1 when newer;
 * `undefined` when either is not comparable (see {@link isComparableResourceVersion}).
 */
export function compareResourceVersions(a: string | undefined, b: string | undefined): -1 | 0 | 1 | undefined {
  if (!isComparableResourceVersion(a) || !isComparableResourceVersion(b)) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}
