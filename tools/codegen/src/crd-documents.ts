/** Reads CustomResourceDefinitions out of YAML or JSON text, checking the fields the generator relies on. */
import type { CustomResourceDefinition } from '@kubeloop/resource';
import { parseAllDocuments } from 'yaml';
import { CodegenError } from './codegen-error.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isRecord(value)) return `kind ${JSON.stringify(value.kind ?? '(none)')}`;
  return `a ${typeof value}`;
}

/**
 * Checks that `value` is an `apiextensions.k8s.io/v1` CustomResourceDefinition with a group,
 * names, a scope and named versions.
 * @param where names the input in messages, e.g. `crds.yaml, document 2`.
 * @throws CodegenError saying what is missing.
 */
export function checkCustomResourceDefinition(value: unknown, where: string): CustomResourceDefinition {
  if (!isRecord(value) || value.kind !== 'CustomResourceDefinition') {
    throw new CodegenError(`${where}: not a CustomResourceDefinition (${describe(value)})`);
  }
  if (value.apiVersion === 'apiextensions.k8s.io/v1beta1') {
    throw new CodegenError(`${where}: apiextensions.k8s.io/v1beta1 CustomResourceDefinitions are not supported; convert it to apiextensions.k8s.io/v1`);
  }
  if (value.apiVersion !== 'apiextensions.k8s.io/v1') {
    throw new CodegenError(`${where}: unsupported apiVersion ${JSON.stringify(value.apiVersion)} (expected apiextensions.k8s.io/v1)`);
  }
  const spec = value.spec;
  const names = isRecord(spec) ? spec.names : undefined;
  const problems: string[] = [];
  if (!isRecord(spec)) problems.push('spec');
  if (isRecord(spec) && typeof spec.group !== 'string') problems.push('spec.group');
  if (!isRecord(names) || typeof names.kind !== 'string') problems.push('spec.names.kind');
  if (!isRecord(names) || typeof names.plural !== 'string') problems.push('spec.names.plural');
  if (isRecord(spec) && spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') problems.push('spec.scope (Namespaced or Cluster)');
  const versions = isRecord(spec) ? spec.versions : undefined;
  if (!Array.isArray(versions) || versions.length === 0 || !versions.every((v) => isRecord(v) && typeof v.name === 'string')) {
    problems.push('spec.versions (a non-empty list of named versions)');
  }
  if (problems.length > 0) {
    throw new CodegenError(`${where}: invalid CustomResourceDefinition: missing or invalid ${problems.join(', ')}`);
  }
  return value as unknown as CustomResourceDefinition;
}

/**
 * The CustomResourceDefinitions in one file: any number of YAML documents (JSON is YAML), each a
 * CRD or a `List` of CRDs (as `kubectl get -o yaml` prints). Empty documents are skipped.
 * @param file names the input in messages.
 * @throws CodegenError on invalid YAML, a document that is not a CRD, or a file without any CRD.
 */
export function parseCrdDocuments(text: string, file: string): CustomResourceDefinition[] {
  const documents = parseAllDocuments(text);
  const all = Array.isArray(documents) ? documents : [];
  const crds: CustomResourceDefinition[] = [];
  all.forEach((document, i) => {
    const where = all.length > 1 ? `${file}, document ${i + 1}` : file;
    const error = document.errors[0];
    if (error) throw new CodegenError(`${where}: not valid YAML or JSON: ${error.message}`);
    let value: unknown;
    try {
      value = document.toJS();
    } catch (err) {
      throw new CodegenError(`${where}: cannot read the document: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (value === null || value === undefined) return;
    if (isRecord(value) && (value.kind === 'List' || value.kind === 'CustomResourceDefinitionList') && Array.isArray(value.items)) {
      value.items.forEach((item, j) => crds.push(checkCustomResourceDefinition(item, `${where}, item ${j + 1}`)));
    } else {
      crds.push(checkCustomResourceDefinition(value, where));
    }
  });
  if (crds.length === 0) throw new CodegenError(`${file}: no CustomResourceDefinition found`);
  return crds;
}
