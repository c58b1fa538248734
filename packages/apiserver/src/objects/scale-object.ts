/** The `/scale` subresource: a Scale read from, and replicas written to, the object's own fields. */
import type { KubeObject } from '@kubeloop/resource';
import type { ResourceType } from '../types/resource-type.js';
import { replicasOfScale, scaleOf, writePath } from './scale-subresource.js';
import { notFound, staleConflict } from '../http/status-error.js';
import { cloneJson } from '../json-value.js';
import type { ObjectContext, ObjectTarget } from './object-context.js';
import { getObject } from './read-objects.js';
import { updateDecoded } from './update-object.js';
import type { WriteOptions } from './write-options.js';

/** GET of `/scale`: the object's Scale. */
export function getScale(ctx: ObjectContext, type: ResourceType, namespace: string | undefined, name: string): KubeObject {
  if (!type.scale) throw notFound(type, name);
  return scaleOf(type.scale, getObject(ctx, type, namespace, name).object);
}

/**
 * PUT or PATCH of `/scale`: `edit` turns the current Scale into the requested one, whose
 * `spec.replicas` becomes the object's (a resourceVersion it carries must be current). Answers the new Scale.
 */
export function updateScale(ctx: ObjectContext, target: ObjectTarget, edit: (current: KubeObject) => unknown, opts: WriteOptions): Promise<KubeObject> {
  const { type, namespace, name } = target;
  const scale = type.scale;
  if (!scale) throw notFound(type, name);
  return ctx.store.exclusive(async () => {
    const existing = getObject(ctx, type, namespace, name);
    const requested = replicasOfScale(edit(scaleOf(scale, existing.object)), name);
    if (requested.resourceVersion !== undefined && requested.resourceVersion !== existing.object.metadata.resourceVersion) throw staleConflict(type, name);
    const next = cloneJson(existing.object);
    writePath(next, scale.specReplicasPath, requested.replicas);
    const result = await updateDecoded(ctx, target, existing, { obj: next, warnings: [] }, { ...opts, subresource: undefined });
    return scaleOf(scale, result.stored.object);
  });
}
