/** A request body on its way to becoming an object: its envelope checked, its unknown fields handled. */
import type { KubeObject } from '@kubeloop/resource';
import { decodeError } from '../types/builtin-decoding.js';
import { canonicalObject, metadataTypeProblem } from './object-meta.js';
import { apiVersionOf } from '../types/resource-type.js';
import type { FieldValidation } from '../types/resource-type.js';
import { badRequest } from '../http/status-error.js';
import type { CollectionTarget } from './object-context.js';

/** A body decoded into an object of its type, and the warnings the decoding owes the client. */
export interface DecodedObject {
  readonly obj: KubeObject;
  readonly warnings: string[];
}

/**
 * Checks the envelope of a body and returns it as an object of the target's type at its version:
 * apiVersion and kind filled in or matched, namespace from the URL, name matching the URL's (when
 * the target names one).
 */
export function prepareBody(target: CollectionTarget & { readonly name?: string }, body: unknown): KubeObject {
  const { type, version, namespace } = target;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the object provided is unrecognized (must be of type ${type.kind})`);
  }
  const obj = body as KubeObject;
  const expectedApiVersion = apiVersionOf(type, version);
  if (obj.apiVersion === undefined || obj.apiVersion === '') obj.apiVersion = expectedApiVersion;
  else if (obj.apiVersion !== expectedApiVersion) {
    throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expectedApiVersion})`);
  }
  if (obj.kind === undefined || obj.kind === '') obj.kind = type.kind;
  else if (obj.kind !== type.kind) throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${type.kind})`);
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = { name: '' };
  const metaProblem = metadataTypeProblem(obj.metadata);
  if (metaProblem) throw decodeError(type.kind, version, metaProblem);
  const meta = obj.metadata;
  if (type.namespaced) {
    if (!meta.namespace) meta.namespace = namespace ?? '';
    else if (namespace !== undefined && meta.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  } else delete meta.namespace;
  if (target.name !== undefined && (meta.name ?? '') !== target.name) {
    throw badRequest(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${target.name})`);
  }
  return obj;
}

/** Drops unknown fields (reporting them, and repeated ones, per `fieldValidation`) and checks shapes. */
export function decode(
  target: CollectionTarget,
  obj: KubeObject,
  fields: { readonly fieldValidation: FieldValidation; readonly duplicateFields?: readonly string[] | undefined },
): DecodedObject {
  const { type, version } = target;
  const duplicateFields = fields.duplicateFields ?? [];
  const unknown: string[] = [];
  const result = type.decode?.(obj, version);
  if (result) unknown.push(...result.unknownFields);
  const canonical = canonicalObject(obj, unknown);
  const warnings: string[] = [];
  if (unknown.length + duplicateFields.length > 0 && fields.fieldValidation !== 'Ignore') {
    const texts = [...duplicateFields.map((f) => `duplicate field "${f}"`), ...unknown.map((f) => `unknown field "${f}"`)];
    if (fields.fieldValidation === 'Strict') throw badRequest(`${type.kind} in version "${version}" cannot be handled as a ${type.kind}: strict decoding error: ${texts.join(', ')}`);
    warnings.push(...texts);
  }
  return { obj: canonical, warnings };
}
