import type { KubeObject } from '@kubeloop/resource';

/** A resync: the informer re-delivers an object it already delivered (same object or same resourceVersion). */
export function isResync(old: KubeObject, object: KubeObject): boolean {
  if (old === object) return true;
  const rv = old.metadata?.resourceVersion;
  return rv !== undefined && rv !== '' && rv === object.metadata.resourceVersion;
}
