/**
 * `metadata` rules shared by every kind: the canonical field order, the fields a client may
 * not set, and validation of names, labels, annotations and finalizers.
 */
import { labelValueProblem, qualifiedNameProblem } from '@kubeloop/resource';
import type { KubeObject, ObjectMeta } from '@kubeloop/resource';
import { generateNamePrefixProblems, nameProblems } from './name-validation.js';
import type { NameRule } from './name-validation.js';
import { forbiddenValue, invalidValue, requiredValue } from '../http/status-error.js';
import type { FieldProblem } from '../http/status-error.js';

/** `ObjectMeta` fields in the order kube-apiserver writes them. */
const metadataOrder = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
] as const;
const knownMetadataFields = new Set<string>(metadataOrder);

/** True for a field of ObjectMeta (`name`, `labels`...). */
export function isObjectMetaField(field: string): boolean {
  return knownMetadataFields.has(field);
}

/** True for `[]` and `{}`: Go's `omitempty` leaves such lists and maps out of the JSON. */
function isEmptyCollection(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

/**
 * Returns the object in its stored form: `apiVersion`, `kind`, `metadata` first, metadata fields
 * in their canonical order, and no null or empty metadata field (`finalizers: []`, `labels: {}`...
 * are omitted, as kube-apiserver's `omitempty` does). Unknown metadata fields are dropped and
 * reported (as `metadata.x`). Every write passes its result through here before it is compared
 * with the stored object and stored, so the stored form is the same whatever the write.
 */
export function canonicalObject(obj: KubeObject, unknownFields: string[]): KubeObject {
  const meta = obj.metadata as unknown as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const field of metadataOrder) {
    const value = meta[field];
    if (value !== undefined && value !== null && !isEmptyCollection(value)) ordered[field] = value;
  }
  for (const field of Object.keys(meta)) {
    if (!knownMetadataFields.has(field)) unknownFields.push(`metadata.${field}`);
  }
  const { apiVersion, kind, metadata: _metadata, ...rest } = obj;
  return { apiVersion, kind, metadata: ordered as unknown as ObjectMeta, ...rest };
}

function isStringMap(value: unknown): value is Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const v of Object.values(value)) if (typeof v !== 'string') return false;
  return true;
}

/** Checks that metadata fields have their JSON types; the problem text mimics Go's decoder. Returns a message or undefined. */
export function metadataTypeProblem(meta: unknown): string | undefined {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return 'json: cannot unmarshal into Go struct field .metadata of type v1.ObjectMeta';
  const m = meta as Record<string, unknown>;
  for (const field of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp'] as const) {
    const v = m[field];
    if (v !== undefined && v !== null && typeof v !== 'string') return `json: cannot unmarshal ${typeof v} into Go struct field ObjectMeta.metadata.${field} of type string`;
  }
  for (const field of ['labels', 'annotations'] as const) {
    const v = m[field];
    if (v !== undefined && v !== null && !isStringMap(v)) return `json: cannot unmarshal into Go struct field ObjectMeta.metadata.${field} of type map[string]string`;
  }
  const fin = m.finalizers;
  if (fin !== undefined && fin !== null && (!Array.isArray(fin) || fin.some((f) => typeof f !== 'string'))) {
    return 'json: cannot unmarshal into Go struct field ObjectMeta.metadata.finalizers of type []string';
  }
  for (const field of ['ownerReferences', 'managedFields'] as const) {
    const v = m[field];
    if (v !== undefined && v !== null && !Array.isArray(v)) return `json: cannot unmarshal into Go struct field ObjectMeta.metadata.${field} of type array`;
  }
  return undefined;
}

const totalAnnotationSizeLimit = 256 * 1024;

/** Validates name (or generateName), labels, annotations and finalizers. */
export function validateObjectMeta(meta: ObjectMeta, rule: NameRule, checkName: boolean): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (checkName) {
    if (!meta.name) {
      if (!meta.generateName) problems.push(requiredValue('metadata.name', 'name or generateName is required'));
    } else {
      for (const p of nameProblems(rule, meta.name)) problems.push(invalidValue('metadata.name', meta.name, p));
    }
    if (meta.generateName) {
      for (const p of generateNamePrefixProblems(rule, meta.generateName)) problems.push(invalidValue('metadata.generateName', meta.generateName, p));
    }
  }
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem) problems.push(invalidValue('metadata.labels', key, keyProblem));
    const valueProblem = labelValueProblem(value);
    if (valueProblem) problems.push(invalidValue('metadata.labels', value, `a valid label ${valueProblem}`));
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    const keyProblem = qualifiedNameProblem(key.toLowerCase());
    if (keyProblem) problems.push(invalidValue('metadata.annotations', key, keyProblem));
    annotationBytes += key.length + value.length;
  }
  if (annotationBytes > totalAnnotationSizeLimit) {
    problems.push({ reason: 'FieldValueTooLong', message: `Too long: must have at most ${totalAnnotationSizeLimit} bytes`, field: 'metadata.annotations' });
  }
  (meta.finalizers ?? []).forEach((finalizer, i) => {
    const problem = qualifiedNameProblem(finalizer);
    if (problem) problems.push(invalidValue(`metadata.finalizers[${i}]`, finalizer, problem));
  });
  problems.push(...ownerReferenceProblems(meta.ownerReferences));
  return problems;
}

/** kube-apiserver's `ValidateOwnerReferences`: apiVersion (with a version), kind, name and uid set; at most one controller. */
function ownerReferenceProblems(refs: readonly unknown[] | undefined): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const field = 'metadata.ownerReferences';
  let controller: string | undefined;
  for (const entry of refs ?? []) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(invalidValue(field, entry, 'must be an owner reference'));
      continue;
    }
    const ref = entry as Record<string, unknown>;
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    if (apiVersion === '' || apiVersion.endsWith('/')) problems.push(invalidValue(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    else if (apiVersion.split('/').length > 2) problems.push(invalidValue(`${field}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    for (const key of ['kind', 'name', 'uid'] as const) {
      const value = ref[key];
      if (typeof value !== 'string' || value === '') problems.push(invalidValue(`${field}.${key}`, typeof value === 'string' ? value : '', 'must not be empty'));
    }
    if (ref.controller === true) {
      const name = `${String(ref.kind)}/${String(ref.name)}`;
      if (controller !== undefined) {
        problems.push(invalidValue(field, refs, `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${name}`));
      } else controller = name;
    }
  }
  return problems;
}

/** Finalizers present in `next` but not in `old` while `old` is being deleted: forbidden (422). */
export function newFinalizersWhileDeleting(old: ObjectMeta, next: ObjectMeta): FieldProblem | undefined {
  if (!old.deletionTimestamp) return undefined;
  const before = new Set(old.finalizers ?? []);
  const added = (next.finalizers ?? []).filter((f) => !before.has(f));
  if (added.length === 0) return undefined;
  const list = added.map((f) => JSON.stringify(f)).join(', ');
  return forbiddenValue('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${list}}`);
}
