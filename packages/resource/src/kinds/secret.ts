/** The core `v1` Secret kind. */
import { defineKindFor } from '../define-kind.js';
import type { KubeObject } from '../object.js';

/** A Secret. No spec or status. */
export interface Secret extends KubeObject<never, never> {
  /** E.g. `Opaque` (the server's default), `kubernetes.io/tls`, `kubernetes.io/dockerconfigjson`. */
  type?: 'Opaque' | 'kubernetes.io/tls' | 'kubernetes.io/basic-auth' | 'kubernetes.io/dockerconfigjson' | (string & {});
  /** Base64-encoded values. */
  data?: Record<string, string>;
  /** Write-only plain-text values; the server merges them into `data` and never returns them. */
  stringData?: Record<string, string>;
  /** When true, `data` can no longer be changed. */
  immutable?: boolean;
}

/** `v1` Secret: namespaced, plural `secrets`. */
export const SecretKind = defineKindFor<Secret>({ group: '', version: 'v1', kind: 'Secret' });
