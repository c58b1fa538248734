import type { Codec, Encoding } from './codec.js';
import type { KubeObject } from './object.js';

/** Whether objects of a kind live in a namespace or at cluster level. */
export type Scope = 'Namespaced' | 'Cluster';

/**
 * What identifies a resource type on the API server: enough to build its URLs.
 * The same shape as grafana-app-sdk's `resource.Schema`.
 */
export interface Schema {
  /** API group; '' for the core group (`v1`). */
  readonly group: string;
  readonly version: string;
  /** PascalCase kind, e.g. `ConfigMap`. */
  readonly kind: string;
  /** Lower-case plural used in URLs, e.g. `configmaps`. */
  readonly plural: string;
  readonly scope: Scope;
  /** `group/version`, or just `version` for the core group. */
  readonly apiVersion: string;
}

/**
 * A {@link Schema} plus what is needed to create and (de)serialize typed objects of the kind.
 * Create one with `defineKind()`.
 */
export interface Kind<T extends KubeObject = KubeObject> extends Schema {
  /** Lower-case singular name, e.g. `configmap`. */
  readonly singular: string;
  readonly shortNames: readonly string[];
  /** A new, empty object of this kind with apiVersion and kind set and an empty name. */
  zeroValue(): T;
  /** The codec for an encoding; JSON is always available. */
  codec(encoding?: Encoding): Codec<T>;
}
