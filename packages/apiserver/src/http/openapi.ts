/**
 * `/openapi/v3`: a root listing one document per served group-version, and those documents
 * (and `/openapi/v2`, the same converted to one Swagger 2.0 document, see `openapi-v2.ts`).
 * Enough for kubectl: `apply`/`create` with default validation download them, find each kind's
 * PATCH operation by `x-kubernetes-group-version-kind`, see that it takes `fieldValidation`
 * (so validation happens here, server-side) and which patch media types it accepts (strategic
 * merge only for built-ins). Documents are cached per registry revision; the hash in each URL
 * changes whenever a document does (kubectl caches by URL).
 */
import { createHash } from 'node:crypto';
import type { ResourceRegistry } from '../types/resource-registry.js';
import type { ResourceType } from '../types/resource-type.js';
import { swaggerDocument } from './openapi-v2.js';
import { acceptedPatchTypes } from './patch-media-types.js';

const sharedSchemas: Record<string, unknown> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    type: 'object',
    description: 'ObjectMeta is metadata that all persisted resources must have.',
    properties: {
      name: { type: 'string' },
      generateName: { type: 'string' },
      namespace: { type: 'string' },
      uid: { type: 'string' },
      resourceVersion: { type: 'string' },
      generation: { type: 'integer', format: 'int64' },
      creationTimestamp: { type: 'string', format: 'date-time' },
      deletionTimestamp: { type: 'string', format: 'date-time' },
      deletionGracePeriodSeconds: { type: 'integer', format: 'int64' },
      labels: { type: 'object', additionalProperties: { type: 'string', default: '' } },
      annotations: { type: 'object', additionalProperties: { type: 'string', default: '' } },
      finalizers: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
      ownerReferences: {
        type: 'array',
        items: { type: 'object', 'x-kubernetes-map-type': 'atomic' },
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      },
      managedFields: { type: 'array', items: { type: 'object' } },
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Patch': {
    type: 'object',
    description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
  },
  'io.k8s.api.autoscaling.v1.Scale': {
    type: 'object',
    description: 'Scale represents a scaling request for a resource.',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }], default: {} },
      spec: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' } } },
      status: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' }, selector: { type: 'string' } }, required: ['replicas'] },
    },
    'x-kubernetes-group-version-kind': [{ group: 'autoscaling', kind: 'Scale', version: 'v1' }],
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Status': {
    type: 'object',
    description: 'Status is a return value for calls that don\'t return other objects.',
    properties: { code: { type: 'integer', format: 'int32' }, message: { type: 'string' }, reason: { type: 'string' }, status: { type: 'string' } },
  },
};

/** The `components.schemas` name of a kind: `io.k8s.api.core.v1.ConfigMap`, or reversed group for CRDs (`com.example.v1.Widget`). */
export function schemaName(type: ResourceType, version: string): string {
  if (!type.custom) {
    if (type.group === 'apiextensions.k8s.io') return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}.${type.kind}`;
    const short = type.group === '' ? 'core' : (type.group.split('.')[0] ?? type.group);
    return `io.k8s.api.${short}.${version}.${type.kind}`;
  }
  return `${type.group.split('.').reverse().join('.')}.${version}.${type.kind}`;
}

function queryParam(name: string, type: string, description: string): Record<string, unknown> {
  return { name, in: 'query', description, schema: { type }, uniqueItems: true };
}

const writeParams = [
  queryParam('dryRun', 'string', 'When present, indicates that modifications should not be persisted.'),
  queryParam('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  queryParam('fieldValidation', 'string', 'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn (default) or Strict.'),
];

function operationId(verb: string, type: ResourceType, version: string, namespaced: boolean): string {
  const group = type.group === '' ? 'Core' : (type.group.split('.')[0] ?? '').replace(/^./, (c) => c.toUpperCase());
  const v = version.replace(/^./, (c) => c.toUpperCase());
  return `${verb}${group}${v}${namespaced ? 'Namespaced' : ''}${type.kind}`;
}

function pathsOf(type: ResourceType, version: string): Record<string, unknown> {
  const prefix = type.group === '' ? `/api/${version}` : `/apis/${type.group}/${version}`;
  const base = type.namespaced ? `${prefix}/namespaces/{namespace}/${type.plural}` : `${prefix}/${type.plural}`;
  const ref = { $ref: `#/components/schemas/${schemaName(type, version)}` };
  const gvk = { group: type.group, version, kind: type.kind };
  const json = { 'application/json': { schema: ref } };
  const ok = { '200': { description: 'OK', content: json } };
  const pathParams: Record<string, unknown>[] = [{ name: 'name', in: 'path', required: true, description: `name of the ${type.kind}`, schema: { type: 'string' }, uniqueItems: true }];
  if (type.namespaced) pathParams.push({ name: 'namespace', in: 'path', required: true, description: 'object name and auth scope', schema: { type: 'string' }, uniqueItems: true });
  const ns = type.namespaced;
  const patchContent = Object.fromEntries(acceptedPatchTypes(type).map((t) => [t, { schema: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } }]));
  const patchOp = (subresource: string): Record<string, unknown> => ({
    description: `partially update ${subresource ? `${subresource} of ` : ''}the specified ${type.kind}`,
    operationId: operationId(subresource ? 'patchStatus' : 'patch', type, version, ns),
    parameters: [...writeParams, queryParam('force', 'boolean', 'Force is going to "force" Apply requests.')],
    requestBody: { content: patchContent, required: true },
    responses: { ...ok, '201': { description: 'Created', content: json } },
    'x-kubernetes-action': 'patch',
    'x-kubernetes-group-version-kind': gvk,
  });
  const item = {
    get: { operationId: operationId('read', type, version, ns), responses: ok, 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': gvk },
    put: {
      operationId: operationId('replace', type, version, ns),
      parameters: writeParams,
      requestBody: { content: { '*/*': { schema: ref } }, required: true },
      responses: { ...ok, '201': { description: 'Created', content: json } },
      'x-kubernetes-action': 'put',
      'x-kubernetes-group-version-kind': gvk,
    },
    patch: patchOp(''),
    delete: { operationId: operationId('delete', type, version, ns), responses: ok, 'x-kubernetes-action': 'delete', 'x-kubernetes-group-version-kind': gvk },
    parameters: pathParams,
  };
  const collection = {
    get: { operationId: operationId('list', type, version, ns), responses: ok, 'x-kubernetes-action': 'list', 'x-kubernetes-group-version-kind': gvk },
    post: {
      operationId: operationId('create', type, version, ns),
      parameters: writeParams,
      requestBody: { content: { '*/*': { schema: ref } }, required: true },
      responses: { ...ok, '201': { description: 'Created', content: json }, '202': { description: 'Accepted', content: json } },
      'x-kubernetes-action': 'post',
      'x-kubernetes-group-version-kind': gvk,
    },
    parameters: pathParams.slice(1),
  };
  const paths: Record<string, unknown> = { [base]: collection, [`${base}/{name}`]: item };
  if (type.statusSubresource) {
    paths[`${base}/{name}/status`] = {
      get: { operationId: operationId('readStatus', type, version, ns), responses: ok, 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': gvk },
      put: { ...item.put, operationId: operationId('replaceStatus', type, version, ns) },
      patch: patchOp('status'),
      parameters: pathParams,
    };
  }
  if (type.scale) {
    const scaleRef = { $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale' };
    const scaleJson = { 'application/json': { schema: scaleRef } };
    const scaleGvk = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
    paths[`${base}/{name}/scale`] = {
      get: { operationId: operationId('readScale', type, version, ns), responses: { '200': { description: 'OK', content: scaleJson } }, 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': scaleGvk },
      put: {
        operationId: operationId('replaceScale', type, version, ns),
        parameters: writeParams,
        requestBody: { content: { '*/*': { schema: scaleRef } }, required: true },
        responses: { '200': { description: 'OK', content: scaleJson } },
        'x-kubernetes-action': 'put',
        'x-kubernetes-group-version-kind': scaleGvk,
      },
      patch: { ...patchOp('scale'), operationId: operationId('patchScale', type, version, ns), 'x-kubernetes-group-version-kind': scaleGvk },
      parameters: pathParams,
    };
  }
  return paths;
}

/** The path key of a group-version in the root: `api/v1` or `apis/G/V`. */
function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

interface CachedDocument {
  readonly body: string;
  readonly hash: string;
}

/** Builds and caches the OpenAPI v3 documents of a registry. */
export class OpenApiDocuments {
  readonly #registry: ResourceRegistry;
  #revision = -1;
  #documents = new Map<string, CachedDocument>();
  #v2: string | undefined;

  constructor(registry: ResourceRegistry) {
    this.#registry = registry;
  }

  #refresh(): void {
    if (this.#revision === this.#registry.revision) return;
    const byGv = new Map<string, { group: string; version: string; types: ResourceType[] }>();
    for (const type of this.#registry.all()) {
      for (const version of type.versions) {
        const key = gvPath(type.group, version);
        let entry = byGv.get(key);
        if (!entry) byGv.set(key, (entry = { group: type.group, version, types: [] }));
        entry.types.push(type);
      }
    }
    const documents = new Map<string, CachedDocument>();
    for (const [key, { version, types }] of byGv) {
      const paths: Record<string, unknown> = {};
      const schemas: Record<string, unknown> = { ...sharedSchemas };
      for (const type of types) {
        Object.assign(paths, pathsOf(type, version));
        Object.assign(schemas, type.openApiComponents?.(version));
        schemas[schemaName(type, version)] = type.openApiSchema(version);
      }
      const doc = { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths, components: { schemas } };
      const body = JSON.stringify(doc);
      documents.set(key, { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() });
    }
    this.#documents = documents;
    this.#v2 = undefined;
    this.#revision = this.#registry.revision;
  }

  /** `/openapi/v2`: every group-version in one Swagger 2.0 document (built on first use per revision). */
  v2(): string {
    this.#refresh();
    this.#v2 ??= JSON.stringify(swaggerDocument([...this.#documents.values()].map((d) => JSON.parse(d.body) as Record<string, unknown>)));
    return this.#v2;
  }

  /** `/openapi/v3`. */
  root(): string {
    this.#refresh();
    const paths: Record<string, unknown> = {};
    for (const [key, doc] of this.#documents) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
    return JSON.stringify({ paths });
  }

  /** The document of `api/v1` or `apis/G/V`, with its hash. */
  document(key: string): CachedDocument | undefined {
    this.#refresh();
    return this.#documents.get(key);
  }
}
