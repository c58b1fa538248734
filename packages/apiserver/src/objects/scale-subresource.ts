/**
 * The `/scale` subresource: an autoscaling/v1 `Scale` view of an object with replicas
 * (Deployments, ReplicaSets, StatefulSets, ReplicationControllers). Reading builds the Scale from
 * the object; writing (PUT of a Scale, or a JSON, merge or strategic merge patch of it) changes
 * only the object's desired replicas, through the object's ordinary update path.
 */
import type { KubeObject } from '@kubeloop/resource';
import { patchMediaTypes } from '../http/patch-media-types.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../patch/index.js';
import { parseJsonRequest } from '../http/request-body.js';
import type { ScaleSubresource } from '../types/resource-type.js';
import { badRequest, invalid, invalidValue, unsupportedMediaType } from '../http/status-error.js';

/** The media types a Scale may be patched with. */
export const scalePatchTypes: readonly string[] = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];

function readPath(obj: unknown, path: string): unknown {
  let value = obj;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Sets a dotted path, creating the maps on the way. */
export function writePath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let target = obj;
  for (const key of keys.slice(0, -1)) {
    const next = target[key];
    if (typeof next === 'object' && next !== null && !Array.isArray(next)) target = next as Record<string, unknown>;
    else target = target[key] = {};
  }
  target[keys[keys.length - 1] as string] = value;
}

/** The Scale of an object. */
export function scaleOf(scale: ScaleSubresource, obj: KubeObject): KubeObject {
  const meta = obj.metadata;
  const replicas = readPath(obj, scale.specReplicasPath);
  const statusReplicas = readPath(obj, scale.statusReplicasPath);
  const status: Record<string, unknown> = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  const selector = scale.selector(obj);
  if (selector) status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      ...(meta.namespace !== undefined && { namespace: meta.namespace }),
      ...(meta.uid !== undefined && { uid: meta.uid }),
      ...(meta.resourceVersion !== undefined && { resourceVersion: meta.resourceVersion }),
      ...(meta.creationTimestamp !== undefined && { creationTimestamp: meta.creationTimestamp }),
    },
    spec: typeof replicas === 'number' ? { replicas } : {},
    status,
  };
}

/** Applies a patch request to a Scale; 415 for apply and unknown media types, 400 for bodies that do not parse. */
export function patchScale(current: KubeObject, body: string, mediaType: string): unknown {
  const format = patchMediaTypes[mediaType];
  if (format === undefined || format === 'apply') throw unsupportedMediaType(scalePatchTypes);
  const patch = parseJsonRequest(body, false, (problem) => badRequest(`error decoding patch: ${problem}`)).value;
  const doc = current as unknown as Record<string, unknown>;
  if (format === 'json') return applyJsonPatch(doc, patch);
  if (format === 'merge') return applyMergePatch(doc, patch);
  return applyStrategicMergePatch(doc, patch);
}

const scaleKind = { group: 'autoscaling', kind: 'Scale' };

/** The desired replicas of a Scale sent by a client; 400/422 when it is not a Scale with sensible replicas. */
export function replicasOfScale(body: unknown, name: string): { replicas: number; resourceVersion: string | undefined } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the object provided is unrecognized (must be of type Scale)');
  const scale = body as { kind?: unknown; spec?: { replicas?: unknown }; metadata?: { resourceVersion?: unknown } };
  if (scale.kind !== undefined && scale.kind !== 'Scale') throw badRequest(`the kind in the data (${JSON.stringify(scale.kind)}) does not match the expected kind (Scale)`);
  const replicas = scale.spec?.replicas ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    throw badRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
  }
  if (replicas < 0) throw invalid(scaleKind, name, [invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  const rv = scale.metadata?.resourceVersion;
  return { replicas, resourceVersion: typeof rv === 'string' && rv !== '' ? rv : undefined };
}
