// CRD schema validation: compile once, then prune -> applyDefaults -> validate on every write.
export { CrdSchemaValidator } from './schema-validator.js';
export type { FieldCause } from './field-cause.js';
export { SchemaCompileError } from './schema-compile-error.js';
export { forbiddenSchemaKeywords } from './schema-restrictions.js';
export { PatternCompiler } from './pattern-budget.js';
