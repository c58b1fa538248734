/**
 * Validation, pruning and defaulting of custom resources against their CRD's structural
 * `openAPIV3Schema`, the way kube-apiserver does it. The schema compiles once into a node tree
 * ({@link toSchemaNode}, linear in the schema, every pattern compiled within a budget) that
 * {@link checkValue} interprets; errors become the real server's causes ({@link causesFromSchemaErrors}).
 *
 * Flow on a write, as in the real server: {@link CrdSchemaValidator.prune} ->
 * {@link CrdSchemaValidator.applyDefaults} -> {@link CrdSchemaValidator.validate}; a non-empty
 * result is a 422 Invalid whose `details.causes` are the returned causes.
 *
 * Caveats: CEL rules (`x-kubernetes-validations`) are not evaluated; `metadata` is validated only
 * against what the schema itself declares (name rules are the server's job).
 */
import { causesFromSchemaErrors, patternBudgetCause } from './field-cause.js';
import type { FieldCause } from './field-cause.js';
import { PatternCompiler } from './pattern-budget.js';
import { checkValue, PatternBudgetExceeded } from './schema-check.js';
import { SchemaCompileError } from './schema-compile-error.js';
import type { SchemaNode } from './schema-node.js';
import { applyDefaultValues, pruneValue, structuralNodeOf } from './structural-pruner.js';
import type { StructuralNode } from './structural-pruner.js';
import { toSchemaNode } from './structural-schema-converter.js';

export type { FieldCause } from './field-cause.js';

/**
 * A compiled CRD schema. Construct once per CRD version (the server compiles one per version
 * when the CRD is written and keeps it with the CRD); {@link validate}, {@link prune} and
 * {@link applyDefaults} are then linear in the object.
 *
 * @throws {@link SchemaCompileError} when the schema cannot be compiled (answer the CRD with 422).
 */
export class CrdSchemaValidator {
  private readonly root: SchemaNode;
  private readonly structure: StructuralNode;

  /**
   * @param patterns compiles the schema's patterns; share one among the versions of a CRD so
   *   that their patterns compile once and within one budget. Default: a new one.
   */
  constructor(openAPIV3Schema: Record<string, unknown>, patterns: PatternCompiler = new PatternCompiler()) {
    try {
      this.root = toSchemaNode(openAPIV3Schema, patterns);
    } catch (cause) {
      // The walk recurses once per nesting level (never per property): only a schema nested
      // thousands of levels deep could overflow it, and request bodies stop at 1,000.
      if (cause instanceof RangeError) throw new SchemaCompileError('<root>', 'the schema is nested too deeply to compile', { cause });
      throw cause;
    }
    this.structure = structuralNodeOf(openAPIV3Schema);
  }

  /**
   * Validates a whole object (apiVersion, kind, metadata included); an empty array means valid.
   * A value whose pattern match would exceed the object's matching budget is the only cause then.
   */
  validate(obj: Record<string, unknown>): FieldCause[] {
    try {
      return causesFromSchemaErrors(checkValue(this.root, obj));
    } catch (err) {
      if (err instanceof PatternBudgetExceeded) return [patternBudgetCause(err)];
      throw err;
    }
  }

  /**
   * Removes, in place, the fields the schema does not declare (kept under
   * `x-kubernetes-preserve-unknown-fields`) and `null` values of non-nullable fields. Never touches
   * the top-level `apiVersion`, `kind` and `metadata` (the server handles metadata).
   *
   * @returns the paths of the undeclared fields removed (`spec.foo`, `spec.items[0].bar`), for
   *   `fieldValidation=Strict` (400 `strict decoding error: unknown field "spec.foo"`) and `Warn`.
   */
  prune(obj: Record<string, unknown>): string[] {
    return pruneValue(obj, this.structure, true);
  }

  /** Sets, in place, every missing field whose schema declares a `default` (a deep copy of it). */
  applyDefaults(obj: Record<string, unknown>): void {
    applyDefaultValues(obj, this.structure, true);
  }
}

export { SchemaCompileError };
