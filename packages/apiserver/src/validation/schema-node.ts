/** The compiled form of a structural schema node that `schema-check.ts` interprets. */
import type { FormatCheck } from './kubernetes-formats.js';
import type { CompiledPattern } from './linear-regexp.js';

/** A JSON type as schemas name them (`integer` is a number without a fraction). */
export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

/** The keyword groups, each checked only on data of its type (as Ajv and kube-openapi do). */
export type KeywordGroup = 'number' | 'string' | 'array' | 'object';

/** One schema node, ready to check values with: every keyword parsed, every pattern compiled. */
export interface SchemaNode {
  /** The accepted types (`null` added for `nullable`); undefined accepts any. */
  readonly types: readonly JsonType[] | undefined;
  /**
   * The group whose keywords report a wrong type (a single declared type with keywords of its
   * group); undefined when the type is checked before any keyword.
   */
  readonly typeReportedBy: KeywordGroup | undefined;
  readonly enumValues: readonly unknown[] | undefined;
  /** The scalar members of `enumValues`, for a linear-time membership test. */
  readonly enumScalars: ReadonlySet<unknown> | undefined;
  readonly not: SchemaNode | undefined;
  readonly anyOf: readonly SchemaNode[] | undefined;
  readonly oneOf: readonly SchemaNode[] | undefined;
  readonly allOf: readonly SchemaNode[] | undefined;
  /** Which keyword groups this node has keywords of. */
  readonly groups: ReadonlySet<KeywordGroup>;
  readonly maximum: number | undefined;
  readonly minimum: number | undefined;
  readonly exclusiveMaximum: number | undefined;
  readonly exclusiveMinimum: number | undefined;
  readonly multipleOf: number | undefined;
  readonly maxLength: number | undefined;
  readonly minLength: number | undefined;
  readonly pattern: CompiledPattern | undefined;
  /** The format as written in the schema (messages name it so) and its check. */
  readonly format: { readonly name: string; readonly check: FormatCheck } | undefined;
  readonly maxItems: number | undefined;
  readonly minItems: number | undefined;
  /** One schema for every item, or one per position (a tuple). */
  readonly items: SchemaNode | readonly SchemaNode[] | undefined;
  /** `x-kubernetes-list-type: map`: the keys no two items may share. */
  readonly listMapKeys: readonly string[] | undefined;
  /** `x-kubernetes-list-type: set`: no two items may be equal. */
  readonly listSet: boolean;
  readonly maxProperties: number | undefined;
  readonly minProperties: number | undefined;
  readonly required: readonly string[] | undefined;
  /** A Map: a property named `constructor` or `__proto__` is an ordinary key. */
  readonly properties: ReadonlyMap<string, SchemaNode> | undefined;
  readonly additionalProperties: boolean | SchemaNode | undefined;
  /** `x-kubernetes-embedded-resource`: apiVersion and kind required. */
  readonly embeddedResource: boolean;
}
