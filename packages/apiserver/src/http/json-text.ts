/**
 * Limits on request bodies and patches once decoded, checked before any recursive code runs:
 *
 * - Nesting deeper than {@link maxNestingDepth} is refused (400). kube-apiserver's decoder stops at
 *   10,000 levels; here the limit is lower because V8's `JSON.stringify` (and every recursive
 *   walk of an object) overflows the stack a few thousand levels down, which would be a 500.
 * - Duplicate object keys, which `JSON.parse` silently resolves to the last one, are found (with
 *   their field paths, `spec.template.containers[0].image`) for `fieldValidation=Strict` (400
 *   `strict decoding error: duplicate field "..."`) and `Warn` (a warning), as kube-apiserver does.
 *
 * `JSON.parse` itself is safe for hostile input: it is iterative, and it creates `__proto__`
 * keys as own data properties (never a prototype change).
 */

/** Deepest nesting of objects and arrays accepted in a body or patch. */
export const maxNestingDepth = 1000;

/** What {@link scanJsonText} found. */
export interface JsonTextScan {
  /** Nesting goes deeper than {@link maxNestingDepth}. */
  readonly tooDeep: boolean;
  /** Paths of keys that appear twice in one object (only when asked for). */
  readonly duplicateFields: readonly string[];
}

/** JSON request text parsed within these limits, or the problem to answer a 400 with (plain data, as the worker thread sends it). */
export type JsonTextParsed =
  | { readonly ok: true; readonly value: unknown; readonly duplicateFields: readonly string[] }
  | { readonly ok: false; readonly problem: string };

/** Parses JSON request text, refusing nesting past {@link maxNestingDepth} and finding repeated keys when asked to. Never throws. */
export function parseJsonText(text: string, findDuplicates: boolean): JsonTextParsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: (err as Error).message };
  }
  const scan = scanJsonText(text, findDuplicates);
  if (scan.tooDeep) return { ok: false, problem: `exceeded max depth of ${maxNestingDepth}` };
  return { ok: true, value, duplicateFields: scan.duplicateFields };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

interface Container {
  readonly isObject: boolean;
  readonly path: string;
  /** Keys seen so far (objects, when looking for duplicates). */
  readonly keys: Set<string> | undefined;
  /** Next array index, or whether the next string of an object is a key. */
  index: number;
  expectingKey: boolean;
  lastKey: string;
}

/**
 * Scans the text of a valid JSON document (parse it first) for nesting depth and, with
 * `findDuplicates`, duplicate keys. One pass, no recursion.
 */
export function scanJsonText(text: string, findDuplicates: boolean): JsonTextScan {
  const duplicateFields: string[] = [];
  const stack: Container[] = [];
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      for (i++; i < length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      const top = stack[stack.length - 1];
      if (findDuplicates && top?.isObject && top.expectingKey) {
        const key = JSON.parse(text.slice(start, i + 1)) as string;
        if (top.keys?.has(key)) duplicateFields.push(childPath(top.path, key));
        top.keys?.add(key);
        top.lastKey = key;
        top.expectingKey = false;
      }
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= maxNestingDepth) return { tooDeep: true, duplicateFields };
      let path = '';
      if (findDuplicates) {
        const parent = stack[stack.length - 1];
        if (parent) path = parent.isObject ? childPath(parent.path, parent.lastKey) : `${parent.path}[${parent.index}]`;
      }
      const isObject = c === 0x7b;
      stack.push({ isObject, path, keys: findDuplicates && isObject ? new Set() : undefined, index: 0, expectingKey: isObject, lastKey: '' });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.isObject) top.expectingKey = true;
      else if (top) top.index++;
    }
  }
  return { tooDeep: false, duplicateFields };
}

/** True when a decoded value (YAML, protobuf) nests deeper than {@link maxNestingDepth}. Iterative. */
export function nestingTooDeep(value: unknown): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const v = next.value;
    if (typeof v !== 'object' || v === null) continue;
    const depth = next.depth + 1;
    if (depth > maxNestingDepth) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) pending.push({ value: child, depth });
  }
  return false;
}
