/** What an external-resource {@link Reconciler} must do (operator-sdk-extra `controller.Diff`). */
export interface Diff {
  /** The external resource does not exist: `create` is called. */
  needCreate: boolean;
  /** The external resource differs from the expected one: `update` is called (unless `needCreate`). */
  needUpdate: boolean;
  /** A human-readable description of the difference, for logs and Events. Default: ''. */
  diff?: string | undefined;
}

/**
 * What a phase must do to its child Kubernetes resources (operator-sdk-extra `controller.K8sDiff`).
 * Several may be true at once: a phase may own several children.
 */
export interface K8sDiff {
  /** Some child is missing: `create` is called. */
  needCreate: boolean;
  /** Some child differs: `update` is called. */
  needUpdate: boolean;
  /** Some child should no longer exist: `delete` is called. */
  needDelete: boolean;
  /** A human-readable description of the difference, for logs and Events. Default: ''. */
  diff?: string | undefined;
}

/** True when the diff asks for nothing. */
export function isEmptyDiff(diff: Diff | K8sDiff): boolean {
  return !diff.needCreate && !diff.needUpdate && !('needDelete' in diff && diff.needDelete);
}
