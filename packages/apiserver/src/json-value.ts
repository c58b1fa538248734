/**
 * Small helpers over JSON values (objects, arrays, strings, numbers, booleans, null), shared by the
 * patch engines and the object rules (no-op writes, immutable fields).
 */

/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy of a JSON value (own enumerable properties only); several times faster than
 * `structuredClone` for plain JSON. Runs on every patch: plain loops, no per-property closures or
 * entry arrays (`Object.entries` made it 4x slower).
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i] as unknown);
    return out as T;
  }
  const source = value as JsonObject;
  const out: JsonObject = {};
  for (const k in source) {
    if (!Object.prototype.hasOwnProperty.call(source, k)) continue;
    const v = cloneJson(source[k]);
    if (k === '__proto__') setOwn(out, k, v);
    else out[k] = v;
  }
  return out as T;
}

/** `obj[key]` if it is an own property; never reads through the prototype (`__proto__`, `constructor`). */
export function getOwn(obj: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/** True when `key` is an own property of `obj`. */
export function hasOwn(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Sets an own property, also for `__proto__` (which plain assignment would turn into a prototype change). */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/**
 * Deep equality of JSON values, as their JSON texts would compare: object key order does not
 * matter and a property holding `undefined` counts as absent (objects built with spreads and
 * optional fields carry such properties). Only own properties are read.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  let defined = 0;
  for (const key of Object.keys(ao)) {
    const value = ao[key];
    if (value === undefined) continue;
    defined++;
    if (!jsonEqual(value, getOwn(bo, key))) return false;
  }
  for (const key of Object.keys(bo)) if (bo[key] !== undefined) defined--;
  return defined === 0;
}
