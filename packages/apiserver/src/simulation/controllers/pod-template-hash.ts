/**
 * The `pod-template-hash` of a Deployment's ReplicaSets, and the template comparison that finds a
 * Deployment's new ReplicaSet.
 *
 * The hash is our own, stable one, not upstream's value: upstream hashes the Go structs' `spew`
 * dump, which depends on the Go types of its release and cannot be reproduced from JSON. Ours has
 * upstream's shape: FNV-1a (32 bits) over the template's canonical JSON (keys sorted, empty values
 * left out), then `collisionCount` as 8 little-endian bytes when set, the decimal number written
 * with upstream's `SafeEncodeString` alphabet (so names read as on a cluster: `web-7d4b9c8f5`).
 * The same template always gives the same name, across restarts and servers.
 */
import type { V1PodTemplateSpec } from '@kubeloop/resource';

/** The label (on ReplicaSets, their selectors and templates, and Pods) holding the hash. */
export const podTemplateHashLabel = 'pod-template-hash';

const safeAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** The hash of `template`, with `collisionCount` (the Deployment's `status.collisionCount`) when set. */
export function podTemplateHash(template: V1PodTemplateSpec, collisionCount: number | undefined): string {
  let hash = fnv1a(0x811c9dc5, Buffer.from(canonicalJson(template), 'utf8'));
  if (collisionCount !== undefined) {
    const bytes = Buffer.alloc(8);
    bytes.writeUInt32LE(collisionCount >>> 0, 0);
    hash = fnv1a(hash, bytes);
  }
  return [...String(hash)].map((digit) => safeAlphabet[digit.charCodeAt(0) % safeAlphabet.length]).join('');
}

/** Upstream's `EqualIgnoreHash`: equal templates once the `pod-template-hash` label is left out (empty and absent alike). */
export function templatesEqualIgnoringHash(a: V1PodTemplateSpec | undefined, b: V1PodTemplateSpec | undefined): boolean {
  return canonicalJson(withoutHash(a)) === canonicalJson(withoutHash(b));
}

/** `template` without the `pod-template-hash` label (a copy; the input is not changed). */
export function withoutHash(template: V1PodTemplateSpec | undefined): V1PodTemplateSpec {
  const labels = { ...template?.metadata?.labels };
  delete labels[podTemplateHashLabel];
  return { ...template, metadata: { ...template?.metadata, labels } };
}

function fnv1a(seed: number, bytes: Uint8Array): number {
  let hash = seed;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/** JSON with object keys sorted and null, empty arrays and empty objects left out (Go's semantic equality treats nil and empty alike). */
function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value)) ?? '';
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => canonical(item) ?? null);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = canonical((value as Record<string, unknown>)[key]);
    if (item === null || item === undefined) continue;
    if (Array.isArray(item) && item.length === 0) continue;
    if (typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length === 0) continue;
    out[key] = item;
  }
  return out;
}
