/**
 * The shape of a Kubernetes API type as data (see `kubernetes-models.generated.ts`): its JSON
 * fields with their types, and which fields are required. One description serves decoding,
 * validation of required fields, defaulting paths, strategic merge patch and `/openapi/v3`.
 *
 * A field type is one of `string`, `byte` (base64), `int32`, `int64`, `double`, `boolean`,
 * `time` (RFC 3339), `int-or-string`, `any`, a model name (`V1PodSpec`), `[]T` (a list) or
 * `map[T]` (a map with string keys).
 */

/** One API type. */
export interface ModelDefinition {
  /** JSON fields that must be set (the OpenAPI `required` list). */
  readonly required?: readonly string[];
  /** JSON field name -> field type. */
  readonly fields: Readonly<Record<string, string>>;
}

/** API types by model name (`V1Deployment`, `V1PodSpec`...). */
export type ModelDefinitions = Readonly<Record<string, ModelDefinition>>;

/** A field type taken apart: a list or map of an element type, or a plain type. */
export type FieldType =
  | { readonly list: FieldType }
  | { readonly map: FieldType }
  | { readonly model: string }
  | { readonly scalar: 'string' | 'byte' | 'int32' | 'int64' | 'double' | 'boolean' | 'time' | 'int-or-string' | 'any' };

const scalars = new Set(['string', 'byte', 'int32', 'int64', 'double', 'boolean', 'time', 'int-or-string', 'any']);

/** Parses a field type string (`[]V1Container`, `map[string]`...). */
export function parseFieldType(text: string): FieldType {
  if (text.startsWith('[]')) return { list: parseFieldType(text.slice(2)) };
  if (text.startsWith('map[') && text.endsWith(']')) return { map: parseFieldType(text.slice(4, -1)) };
  if (scalars.has(text)) return { scalar: text as 'string' };
  return { model: text };
}
