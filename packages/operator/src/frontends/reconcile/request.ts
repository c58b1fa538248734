import { identifierKey, parseObjectKey } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';

/**
 * What to reconcile: only the object's key (controller-runtime `reconcile.Request`). It says
 * nothing about the event that caused it or the object's contents: reconciliation is
 * level-based, the reconciler reads the current state itself.
 */
export interface Request {
  /** The namespace; '' for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
}

/** The request of an object. */
export function requestFor(object: KubeObject): Request {
  return { namespace: object.metadata.namespace ?? '', name: object.metadata.name };
}

/** The queue key of a request: `namespace/name`, or `name` when cluster-scoped (the informer store's key). */
export function requestKey(request: Request): string {
  return identifierKey(request);
}

/** The request of a queue key (inverse of {@link requestKey}). */
export function requestFromKey(key: string): Request {
  return parseObjectKey(key);
}
