/**
 * The `continue` token of a paginated list: opaque to clients, here the base64 of
 * `{"v":"meta.k8s.io/v1","rv":N,"start":"<key after the last one returned>"}` like kube-apiserver's.
 */
import { badRequest } from '../http/status-error.js';
import type { StatusError } from '../http/status-error.js';

/** A decoded continue token. */
export interface ContinueToken {
  /** The resourceVersion of the first page: every page reports it. */
  readonly rv: number;
  /** Items with keys at or after this are returned next. */
  readonly start: string;
  /**
   * The canonical `shardSelector` of the first page (KEP-5866), when it had one: a later page must
   * ask for the same shard, else its items would mix two shards under one snapshot.
   */
  readonly shard?: string | undefined;
}

/** Encodes a token. */
export function encodeContinueToken(token: ContinueToken): string {
  const fields: Record<string, unknown> = { v: 'meta.k8s.io/v1', rv: token.rv, start: token.start };
  if (token.shard !== undefined) fields.shard = token.shard;
  return Buffer.from(JSON.stringify(fields), 'utf8').toString('base64url');
}

/**
 * kube-apiserver's 400 for a continue token it cannot use (the storage layer's `continue key is not
 * valid: ...`, wrapped by the list as `invalid continue token: ...`).
 */
export function invalidContinueToken(detail: string): StatusError {
  return badRequest(`invalid continue token: continue key is not valid: ${detail}`);
}

/** Go's name for a JSON value's kind, as its decoder's "cannot unmarshal <kind>" error says it. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** Decodes a token; 400 when it is not one of ours (any JSON text included, never a 500). */
export function decodeContinueToken(text: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidContinueToken('illegal base64 data or not JSON');
  }
  // Go decodes `null` into the token struct as no change (an empty token); any other non-object fails to decode.
  if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
    throw invalidContinueToken(`json: cannot unmarshal ${jsonKind(parsed)} into Go value of type storage.continueToken`);
  }
  const t = (parsed ?? {}) as { v?: unknown; rv?: unknown; start?: unknown; shard?: unknown };
  if (t.v !== 'meta.k8s.io/v1') throw invalidContinueToken('server does not recognize this encoded version');
  // A forged rv (1e300, beyond 2^53-1) would be echoed as the list's resourceVersion: refuse it.
  if (typeof t.rv !== 'number' || !Number.isSafeInteger(t.rv) || t.rv < 0) throw invalidContinueToken('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof t.start !== 'string' || t.start === '') throw invalidContinueToken('encoded start key empty (version meta.k8s.io/v1)');
  if (t.shard !== undefined && typeof t.shard !== 'string') throw invalidContinueToken('encoded shard selector is not a string');
  return { rv: t.rv, start: t.start, ...(typeof t.shard === 'string' && { shard: t.shard }) };
}
