/** The PATCH media types: which format each names, and which a resource type accepts. */
import type { ResourceType } from '../types/resource-type.js';

/** The patch formats. */
export type PatchFormat = 'json' | 'merge' | 'strategic' | 'apply';

/** Patch format by media type (parameters stripped). */
export const patchMediaTypes: Readonly<Record<string, PatchFormat>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/** The patch media types a type accepts, in kube-apiserver's order (strategic merge only for built-ins). */
export function acceptedPatchTypes(type: ResourceType): string[] {
  const types = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
  if (!type.custom) types.push('application/strategic-merge-patch+json');
  return types;
}
