/** The content version the steady writer puts in each ConfigMap's `data.version`, as the operator and the checks read it. */
import type { ConfigMap } from '@kubeloop/resource';

/** `data.version` as a number; -1 when it has none. */
export function versionOf(object: ConfigMap): number {
  const version = Number(object.data?.['version']);
  return Number.isInteger(version) ? version : -1;
}
