/**
 * The `continue` token of a paginated list: opaque to clients, here the base64 of
 * `{"v":"meta.k8s.io/v1","rv":N,"start":"<key after the last one returned>"}` like kube-apiserver's.
 */
import { badRequest } from '../http/status-error.js';

/** A decoded continue token. */
export interface ContinueToken {
  /** The resourceVersion of the first page: every page reports it. */
  readonly rv: number;
  /** Items with keys at or after this are returned next. */
  readonly start: string;
}

/** Encodes a token. */
export function encodeContinueToken(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.rv, start: token.start }), 'utf8').toString('base64url');
}

/** Decodes a token; 400 when it is not one of ours. */
export function decodeContinueToken(text: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data or not JSON');
  }
  const t = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (t.v !== 'meta.k8s.io/v1') throw badRequest('continue key is not valid: server does not recognize this encoded key');
  // A forged rv (1e300, beyond 2^53-1) would be echoed as the list's resourceVersion: refuse it.
  if (typeof t.rv !== 'number' || !Number.isSafeInteger(t.rv) || t.rv < 0) throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof t.start !== 'string' || t.start === '') throw badRequest('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  return { rv: t.rv, start: t.start };
}
