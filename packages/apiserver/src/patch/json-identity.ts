/**
 * A text per JSON value such that two values have the same text exactly when `jsonEqual` calls
 * them equal (object key order ignored, a property holding `undefined` counted as absent), so
 * that "is there an equal item?" is one Set or Map lookup instead of a scan of the list.
 */
import { isJsonObject } from '../json-value.js';

/** The identity text of a JSON value (`undefined` has its own text, equal to nothing else). */
export function jsonIdentity(value: unknown): string {
  if (value === undefined) return '~';
  if (Array.isArray(value)) return `[${value.map(jsonIdentity).join(',')}]`;
  if (!isJsonObject(value)) return JSON.stringify(value);
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const v = value[key];
    if (v !== undefined) parts.push(`${JSON.stringify(key)}:${jsonIdentity(v)}`);
  }
  return `{${parts.join(',')}}`;
}
