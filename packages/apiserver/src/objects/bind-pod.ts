/**
 * A Pod's binding to a node, as kube-apiserver's `pods/binding` storage does it: `spec.nodeName`
 * set once, with the `PodScheduled` condition, in one write. Only the simulated scheduler binds
 * (the HTTP `binding` subresource is not served).
 */
import type { KubeObject } from '@kubeloop/resource';
import { conflict } from '../http/status-error.js';
import { cloneJson } from '../json-value.js';
import { decode } from './incoming-object.js';
import type { ObjectContext, ObjectTarget } from './object-context.js';
import { getObject } from './read-objects.js';
import { updateDecoded } from './update-object.js';
import type { WriteOptions, WriteResult } from './write-options.js';

/** What binds a Pod. */
export interface PodBinding {
  /** The Pod's uid: a Pod deleted and made again under the same name is not bound (409). */
  readonly uid: string;
  readonly nodeName: string;
  /** The `lastTransitionTime` of the `PodScheduled` condition (RFC 3339). */
  readonly time: string;
}

/** Binds a Pod; 409 when it is bound already, being deleted, or another Pod of that name. */
export function bindPod(ctx: ObjectContext, target: ObjectTarget, binding: PodBinding, opts: WriteOptions): Promise<WriteResult> {
  const { type, namespace, name } = target;
  return ctx.store.exclusive(async () => {
    const existing = getObject(ctx, type, namespace, name);
    const old = existing.object;
    if (old.metadata.uid !== binding.uid) throw conflict(type, name, `Precondition failed: UID in precondition: ${binding.uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
    if (old.metadata.deletionTimestamp) throw conflict(type, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    const spec = (old.spec ?? {}) as { nodeName?: string };
    if (spec.nodeName) throw conflict(type, name, `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
    const next = cloneJson(old) as KubeObject & { spec: Record<string, unknown>; status?: { conditions?: Record<string, unknown>[] } };
    next.spec.nodeName = binding.nodeName;
    const status = (next.status ??= {});
    const others = (status.conditions ?? []).filter((condition) => condition.type !== 'PodScheduled');
    status.conditions = [...others, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: binding.time }];
    return updateDecoded(ctx, target, existing, decode(target, next, opts), { ...opts, subresource: 'binding' });
  });
}
