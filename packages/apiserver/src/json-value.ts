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

/** A deep copy of a JSON value; faster than `structuredClone` for plain JSON. */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => cloneJson(v)) as T;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value as JsonObject)) setOwn(out, k, cloneJson(v));
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
