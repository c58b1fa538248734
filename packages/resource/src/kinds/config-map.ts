/** The core `v1` ConfigMap kind. */
import { defineKindFor } from '../define-kind.js';
import type { KubeObject } from '../object.js';

/** A ConfigMap: configuration data as string (`data`) and base64 (`binaryData`) entries. No spec or status. */
export interface ConfigMap extends KubeObject<never, never> {
  /** UTF-8 entries. A key must not appear in both `data` and `binaryData`. */
  data?: Record<string, string>;
  /** Binary entries, base64-encoded on the wire. */
  binaryData?: Record<string, string>;
  /** When true, `data` and `binaryData` can no longer be changed (only the metadata). */
  immutable?: boolean;
}

/** `v1` ConfigMap: namespaced, plural `configmaps`, short name `cm`. */
export const ConfigMapKind = defineKindFor<ConfigMap>({ group: '', version: 'v1', kind: 'ConfigMap', shortNames: ['cm'] });
