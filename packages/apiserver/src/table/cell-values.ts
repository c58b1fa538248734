/**
 * Reading cells out of stored objects whose fields may be missing: absent or mistyped values read
 * as empty ({}, [], 0, ''), so a printer never throws on an object it did not expect.
 */
import { LabelSelector } from '@kubeloop/resource';

export type JsonMap = Record<string, unknown>;

/** The value as a map; {} when it is not one. */
export function record(value: unknown): JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonMap) : {};
}

/** The value as a list of maps (each non-map read as {}); [] when it is not a list. */
export function records(value: unknown): JsonMap[] {
  return Array.isArray(value) ? value.map(record) : [];
}

/** The value as a number; 0 when it is not one. */
export function count(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** The value as a string; '' when it is not one. */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The number of keys of a map (0 for anything else). */
export function countKeys(value: unknown): number {
  return Object.keys(record(value)).length;
}

/** A `LabelSelector` object as kubectl prints it; `<none>` when empty, `<invalid>` when it does not parse. */
export function selectorText(value: unknown): string {
  const object = record(value);
  if (Object.keys(object).length === 0) return '<none>';
  try {
    return LabelSelector.fromLabelSelectorObject(object).toString() || '<none>';
  } catch {
    return '<invalid>';
  }
}

/** A plain label map (`key=value,...`) as kubectl prints it; `<none>` when empty. */
export function labelMapText(value: unknown): string {
  const entries = Object.entries(record(value));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${String(v)}`).join(',');
}
