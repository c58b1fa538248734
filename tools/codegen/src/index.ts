// @kubeloop/codegen public API. Named exports only; types exported with `export type`.
export { generateKindsSource } from './generate-kinds.js';
export type { GenerateKindsOptions } from './generate-kinds.js';
export { parseCrdDocuments, checkCustomResourceDefinition } from './crd-documents.js';
export { SchemaEmitter } from './schema-to-type.js';
export type { SchemaContext } from './schema-to-type.js';
export { CodegenError, isCodegenError } from './codegen-error.js';
export { runCodegenCli } from './run-cli.js';
export type { CliIo } from './run-cli.js';
