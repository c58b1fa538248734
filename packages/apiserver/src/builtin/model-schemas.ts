/**
 * OpenAPI v3 schemas and strategic-merge strategies of built-in kinds, both derived from the
 * generated model definitions (and the patch merge keys) so that `/openapi/v3` and the server's
 * own patching agree.
 */
import type { FieldStrategy } from '../patch/patch-strategies.js';
import { fieldTypeOf, modelDefinition } from './model-decoding.js';
import type { FieldType } from './model-definition.js';
import { patchMergeKeys } from './patch-merge-keys.js';

/** The component every kind's `metadata` refers to (published once per document by `openapi.ts`). */
export const objectMetaSchemaName = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

function refOf(model: string): string {
  return `#/components/schemas/${model === 'V1ObjectMeta' ? objectMetaSchemaName : model}`;
}

function fieldSchema(type: FieldType): Record<string, unknown> {
  if ('list' in type) return { type: 'array', items: fieldSchema(type.list) };
  if ('map' in type) return { type: 'object', additionalProperties: fieldSchema(type.map) };
  if ('model' in type) return { allOf: [{ $ref: refOf(type.model) }] };
  switch (type.scalar) {
    case 'string':
      return { type: 'string' };
    case 'byte':
      return { type: 'string', format: 'byte' };
    case 'int32':
    case 'int64':
      return { type: 'integer', format: type.scalar };
    case 'double':
      return { type: 'number', format: 'double' };
    case 'boolean':
      return { type: 'boolean' };
    case 'time':
      return { type: 'string', format: 'date-time' };
    case 'int-or-string':
      return { 'x-kubernetes-int-or-string': true };
    case 'any':
      return { type: 'object' };
  }
}

function modelSchema(name: string): Record<string, unknown> {
  const model = modelDefinition(name);
  const properties: Record<string, unknown> = {};
  for (const [field, typeText] of Object.entries(model.fields)) {
    const schema = fieldSchema(fieldTypeOf(typeText));
    const mergeKey = patchMergeKeys[`${name}.${field}`];
    if (mergeKey !== undefined) {
      schema['x-kubernetes-patch-strategy'] = 'merge';
      if (mergeKey) schema['x-kubernetes-patch-merge-key'] = mergeKey;
    }
    properties[field] = schema;
  }
  const schema: Record<string, unknown> = { type: 'object', properties };
  if (model.required?.length) schema.required = [...model.required];
  return schema;
}

function referencedModels(type: FieldType): string | undefined {
  if ('list' in type) return referencedModels(type.list);
  if ('map' in type) return referencedModels(type.map);
  return 'model' in type ? type.model : undefined;
}

/** The schema of a kind's root model (tagged with its group-version-kind) and every model it reaches, by component name. */
export function kindSchemas(root: string, gvk: { group: string; version: string; kind: string }): { schema: Record<string, unknown>; components: Record<string, unknown> } {
  const components: Record<string, unknown> = {};
  const queue = [root];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (name in components || name === 'V1ObjectMeta') continue;
    components[name] = modelSchema(name);
    for (const typeText of Object.values(modelDefinition(name).fields)) {
      const ref = referencedModels(fieldTypeOf(typeText));
      if (ref !== undefined && !(ref in components)) queue.push(ref);
    }
  }
  const schema = { ...(components[root] as Record<string, unknown>), 'x-kubernetes-group-version-kind': [gvk] };
  delete components[root];
  return { schema, components };
}

const strategies = new Map<string, FieldStrategy>();

/** The strategic merge strategy tree of a model: merged lists where tagged, recursing into nested types. */
export function modelStrategy(name: string): FieldStrategy {
  const cached = strategies.get(name);
  if (cached) return cached;
  const fields: Record<string, FieldStrategy> = {};
  const strategy: FieldStrategy = { fields };
  // Set before recursing: a self-referencing type ends the recursion at itself.
  strategies.set(name, strategy);
  for (const [field, typeText] of Object.entries(modelDefinition(name).fields)) {
    const ref = referencedModels(fieldTypeOf(typeText));
    const mergeKey = patchMergeKeys[`${name}.${field}`];
    const nested = ref !== undefined ? modelStrategy(ref) : undefined;
    const nestedFields = nested?.fields && Object.keys(nested.fields).length > 0 ? nested.fields : undefined;
    if (mergeKey === undefined && !nestedFields) continue;
    fields[field] = {
      ...(mergeKey !== undefined && { mergeList: mergeKey ? { mergeKey } : {} }),
      ...(nestedFields && { fields: nestedFields }),
    };
  }
  return strategy;
}
