/** Deep equality of JSON values, ignoring object key order (how the server tells a no-op write). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let count = 0;
  for (const key in ao) {
    if (ao[key] === undefined) continue;
    count++;
    if (!jsonEqual(ao[key], bo[key])) return false;
  }
  for (const key in bo) if (bo[key] !== undefined) count--;
  return count === 0;
}
