/**
 * A JSON text that is the same for equal JSON values whatever their object key order, so that
 * equality of items (`x-kubernetes-list-type: set`) is a string comparison. Iterative: depth is
 * bounded by the request limits, but no value can overflow the stack here.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  let out = '';
  // Either a value still to write, or literal text (separators, closing brackets).
  const stack: ({ value: unknown } | string)[] = [{ value }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (typeof next === 'string') {
      out += next;
      continue;
    }
    const v = next.value;
    if (typeof v !== 'object' || v === null) {
      out += JSON.stringify(v) ?? 'null';
    } else if (Array.isArray(v)) {
      out += '[';
      stack.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] });
        if (i > 0) stack.push(',');
      }
    } else {
      const keys = Object.keys(v).sort();
      out += '{';
      stack.push('}');
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        stack.push({ value: (v as Record<string, unknown>)[key] });
        stack.push(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`);
      }
    }
  }
  return out;
}
