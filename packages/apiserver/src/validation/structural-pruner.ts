/**
 * Pruning and defaulting of custom resources by their structural schema, as the real API server
 * does before validating: fields the schema does not declare are dropped (unless
 * `x-kubernetes-preserve-unknown-fields`), `null` in a non-nullable field is dropped, and missing
 * fields with a `default` get a copy of it. Only the structural part of the schema counts
 * (`properties`, `additionalProperties`, `items`); `allOf`/`anyOf`/`oneOf` never widen what is kept.
 */
import { isObjectMetaField } from '../objects/object-meta.js';
import { isRecord } from './structural-schema-converter.js';

/** The structural skeleton of a schema node, built once per schema. */
export interface StructuralNode {
  readonly properties: ReadonlyMap<string, StructuralNode> | undefined;
  readonly additionalProperties: StructuralNode | undefined;
  readonly items: StructuralNode | undefined;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  readonly nullable: boolean;
  /** `default`, `undefined` when the schema has none. */
  readonly defaultValue: unknown;
  /** True when this node or a descendant declares a `default` (lets defaulting skip whole subtrees). */
  readonly hasDefaults: boolean;
}

/** Builds the structural skeleton of a schema node. */
export function structuralNodeOf(schema: unknown): StructuralNode {
  const s = isRecord(schema) ? schema : {};
  let properties: Map<string, StructuralNode> | undefined;
  let hasDefaults = s['default'] !== undefined;
  if (isRecord(s['properties'])) {
    properties = new Map();
    for (const [name, child] of Object.entries(s['properties'])) {
      const node = structuralNodeOf(child);
      hasDefaults ||= node.hasDefaults;
      properties.set(name, node);
    }
  }
  const additionalProperties = isRecord(s['additionalProperties']) ? structuralNodeOf(s['additionalProperties']) : undefined;
  const items = isRecord(s['items']) ? structuralNodeOf(s['items']) : undefined;
  hasDefaults ||= (additionalProperties?.hasDefaults ?? false) || (items?.hasDefaults ?? false);
  return {
    properties,
    additionalProperties,
    items,
    // `additionalProperties: true` keeps every field as well.
    preserveUnknownFields: s['x-kubernetes-preserve-unknown-fields'] === true || s['additionalProperties'] === true,
    embeddedResource: s['x-kubernetes-embedded-resource'] === true,
    nullable: s['nullable'] === true,
    defaultValue: s['default'],
    hasDefaults,
  };
}

const objectHeader = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Removes undeclared fields and non-nullable nulls from `value`, in place. `root` keeps apiVersion,
 * kind and metadata untouched. Appends the paths of removed undeclared fields (`spec.foo`,
 * `spec.items[0].bar`) to `removed`; `path` holds the segments of `value`'s own path.
 */
export function pruneValue(value: unknown, node: StructuralNode, root: boolean, path: string[] = [], removed: string[] = []): string[] {
  if (Array.isArray(value)) {
    if (node.items !== undefined) {
      for (let i = 0; i < value.length; i++) {
        path.push(`[${i}]`);
        pruneValue(value[i], node.items, false, path, removed);
        path.pop();
      }
    }
    return removed;
  }
  if (!isRecord(value)) return removed;
  const keepHeader = root || node.embeddedResource;
  // An embedded object's metadata is an ObjectMeta: what is not one of its fields is dropped and
  // reported, as kube-apiserver does (`spec.template.metadata.x`). The root's is checked on every write.
  if (node.embeddedResource && !root && isRecord(value.metadata)) {
    for (const field of Object.keys(value.metadata)) {
      if (isObjectMetaField(field)) continue;
      delete value.metadata[field];
      removed.push(joinPath([...path, 'metadata'], field));
    }
  }
  for (const key of Object.keys(value)) {
    if (keepHeader && objectHeader.has(key)) continue;
    const childNode = node.properties?.get(key) ?? node.additionalProperties;
    if (childNode === undefined) {
      if (!node.preserveUnknownFields) {
        delete value[key];
        removed.push(joinPath(path, key));
      }
      continue;
    }
    const child = value[key];
    if (child === null && !childNode.nullable) {
      delete value[key];
      continue;
    }
    path.push(key);
    pruneValue(child, childNode, false, path, removed);
    path.pop();
  }
  return removed;
}

function joinPath(path: readonly string[], key: string): string {
  let out = '';
  for (const segment of path) out += segment.startsWith('[') || out === '' ? segment : `.${segment}`;
  return out === '' ? key : `${out}.${key}`;
}

/** Fills missing fields that declare a `default`, in place. */
export function applyDefaultValues(value: unknown, node: StructuralNode, root: boolean): void {
  if (!node.hasDefaults) return;
  if (Array.isArray(value)) {
    if (node.items !== undefined) for (const item of value) applyDefaultValues(item, node.items, false);
    return;
  }
  if (!isRecord(value)) return;
  if (node.properties !== undefined) {
    for (const [key, childNode] of node.properties) {
      if (root && objectHeader.has(key)) continue;
      // Own properties only: `valueOf` or `toString` are found on every object's prototype.
      if (childNode.defaultValue !== undefined && (!Object.hasOwn(value, key) || value[key] === undefined)) value[key] = structuredClone(childNode.defaultValue);
    }
  }
  for (const key of Object.keys(value)) {
    if (root && objectHeader.has(key)) continue;
    const childNode = node.properties?.get(key) ?? node.additionalProperties;
    if (childNode !== undefined) applyDefaultValues(value[key], childNode, false);
  }
}
