/**
 * CustomResourceDefinitions (apiextensions.k8s.io/v1) and the resource types they define.
 *
 * A created CRD is Established at once: its status gets `acceptedNames`, `storedVersions` and
 * the conditions NamesAccepted (NoConflicts) and Established (InitialNamesAccepted), both True,
 * as the real controllers set them a moment later. The API server registers the defined type
 * right after the write, so it is served and in discovery as soon as the create returns.
 */
import type { KubeObject } from '@kubeloop/resource';
import { kindSchema } from './builtin-resources.js';
import { dns1123LabelProblems, dns1123SubdomainProblems } from '../objects/name-validation.js';
import { allVerbs, storeKeyOf } from './resource-type.js';
import type { DecodeResult, PrinterColumn, ResourceType, ScaleSubresource } from './resource-type.js';
import { invalidValue, requiredValue, unsupportedValue } from '../http/status-error.js';
import type { FieldProblem } from '../http/status-error.js';
import { compileSchemaValidator, isSchemaCompileError, newSchemaValidator, takeCompiledValidator } from './crd-schema.js';
import { forbiddenSchemaKeywords, PatternCompiler } from '../validation/index.js';
import type { SchemaCompileError } from '../validation/index.js';
import type { SchemaValidatorLike } from './crd-schema.js';
import { createdAtPrinter, customResourcePrinter } from '../table/table-printer.js';
import type { TablePrinter } from '../table/table-printer.js';
import { compareVersionPriority } from './version-priority.js';
import { timestampText } from '../timestamp-text.js';

/** The parts of a CRD this server reads. */
export interface CrdSpec {
  group?: string;
  names?: { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[]; categories?: string[] };
  scope?: string;
  versions?: CrdVersion[];
  conversion?: { strategy?: string };
}

/** One entry of `spec.versions`. */
export interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: unknown; scale?: unknown };
  additionalPrinterColumns?: PrinterColumn[];
  deprecated?: boolean;
}

function specOf(crd: KubeObject): CrdSpec {
  return (crd.spec ?? {});
}

function applyDefaults(crd: KubeObject): void {
  const spec = specOf(crd);
  if (spec.names?.kind) {
    spec.names.singular ||= spec.names.kind.toLowerCase();
    spec.names.listKind ||= `${spec.names.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
  for (const v of spec.versions ?? []) {
    v.served ??= false;
    v.storage ??= false;
  }
}

function statusFor(crd: KubeObject, previous: KubeObject | undefined): Record<string, unknown> {
  const spec = specOf(crd);
  const names = spec.names ?? {};
  const acceptedNames: Record<string, unknown> = { plural: names.plural, singular: names.singular, kind: names.kind, listKind: names.listKind };
  if (names.shortNames?.length) acceptedNames.shortNames = names.shortNames;
  if (names.categories?.length) acceptedNames.categories = names.categories;
  const storage = (spec.versions ?? []).find((v) => v.storage)?.name;
  const prevStatus = (previous?.status ?? {}) as { storedVersions?: string[]; conditions?: Record<string, unknown>[] };
  const storedVersions = [...(prevStatus.storedVersions ?? [])];
  if (storage && !storedVersions.includes(storage)) storedVersions.push(storage);
  const time = timestampText();
  const conditions = prevStatus.conditions?.length
    ? prevStatus.conditions
    : [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: time, reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'True', lastTransitionTime: time, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ];
  return { conditions, acceptedNames, storedVersions };
}

/** The 422 cause of a schema that does not compile, worded as kube-apiserver words it. */
function schemaCompileProblem(field: string, err: SchemaCompileError): FieldProblem {
  if (err.value !== undefined) return invalidValue(field, err.value, err.detail);
  if (err.detail.startsWith('Required value')) return { reason: 'FieldValueRequired', message: err.detail, field };
  if (err.detail.startsWith('Unsupported value')) return { reason: 'FieldValueNotSupported', message: err.detail, field };
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${err.detail}`, field };
}

function validateCrd(crd: KubeObject, old: KubeObject | undefined): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const spec = specOf(crd);
  const group = spec.group ?? '';
  const names = spec.names ?? {};
  if (!group) problems.push(requiredValue('spec.group'));
  else if (!group.includes('.')) problems.push(invalidValue('spec.group', group, 'should be a domain with at least one dot'));
  else for (const p of dns1123SubdomainProblems(group)) problems.push(invalidValue('spec.group', group, p));
  if (!names.plural) problems.push(requiredValue('spec.names.plural'));
  else for (const p of dns1123LabelProblems(names.plural)) problems.push(invalidValue('spec.names.plural', names.plural, p));
  if (names.singular) for (const p of dns1123LabelProblems(names.singular)) problems.push(invalidValue('spec.names.singular', names.singular, p));
  if (!names.kind) problems.push(requiredValue('spec.names.kind'));
  (names.shortNames ?? []).forEach((s, i) => {
    for (const p of dns1123LabelProblems(s)) problems.push(invalidValue(`spec.names.shortNames[${i}]`, s, p));
  });
  if (names.plural && group && crd.metadata.name !== `${names.plural}.${group}`) {
    problems.push(invalidValue('metadata.name', crd.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    if (!spec.scope) problems.push(requiredValue('spec.scope'));
    else problems.push(unsupportedValue('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  }
  const versions = spec.versions ?? [];
  if (versions.length === 0) problems.push(invalidValue('spec.versions', versions, 'must have exactly one version marked as storage version'));
  else if (versions.filter((v) => v.storage).length !== 1) {
    problems.push(invalidValue('spec.versions', versions, 'must have exactly one version marked as storage version'));
  }
  if (versions.length > 0 && !versions.some((v) => v.served)) problems.push(invalidValue('spec.versions', versions, 'must have at least one version marked as served'));
  const seen = new Set<string>();
  // One pattern budget for the whole CRD: its versions' patterns compile once, together.
  const patterns = new PatternCompiler();
  versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    if (!v.name) problems.push(requiredValue(`${path}.name`));
    else {
      for (const p of dns1123LabelProblems(v.name)) problems.push(invalidValue(`${path}.name`, v.name, p));
      if (seen.has(v.name)) problems.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(v.name)}`, field: 'spec.versions' });
      seen.add(v.name);
    }
    const schema = v.schema?.openAPIV3Schema;
    if (!schema || typeof schema !== 'object') problems.push(requiredValue(`${path}.schema.openAPIV3Schema`, 'schemas are required'));
    else {
      const schemaPath = `${path}.schema.openAPIV3Schema`;
      const forbidden = forbiddenSchemaKeywords(schema, schemaPath);
      problems.push(...forbidden);
      try {
        if (forbidden.length === 0) compileSchemaValidator(schema, patterns);
      } catch (err) {
        if (!isSchemaCompileError(err)) throw err;
        problems.push(schemaCompileProblem(`${schemaPath}.${err.field}`, err));
      }
      if (schema.type !== 'object') problems.push(unsupportedValue(`${path}.schema.openAPIV3Schema.type`, schema.type ?? '', ['object']));
    }
  });
  if (old) {
    const oldSpec = specOf(old);
    if (oldSpec.scope !== spec.scope) problems.push(invalidValue('spec.scope', spec.scope, 'field is immutable'));
    if (oldSpec.group !== spec.group) problems.push(invalidValue('spec.group', spec.group, 'field is immutable'));
  }
  return problems;
}

/** The `customresourcedefinitions` resource itself. */
export const crdType: ResourceType = {
  group: 'apiextensions.k8s.io',
  versions: ['v1'],
  storageVersion: 'v1',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  verbs: allVerbs,
  statusSubresource: true,
  hasGeneration: true,
  custom: false,
  allowUnconditionalUpdate: false,
  nameRule: 'subdomain',
  returnsDeletedObject: true,
  extraSelectableFields: [],
  tablePrinter: () => createdAtPrinter,
  decode(obj): DecodeResult {
    applyDefaults(obj);
    return { unknownFields: [] };
  },
  validate: validateCrd,
  prepareCreate(obj) {
    obj.status = statusFor(obj, undefined);
  },
  prepareUpdate(obj, old) {
    obj.status = statusFor(obj, old);
  },
  openApiSchema: () =>
    kindSchema('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', {
      spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    }),
};

/** The store key of the type a CRD defines (`group/plural`). */
export function storeKeyOfCrd(crd: KubeObject): string {
  const spec = specOf(crd);
  return storeKeyOf({ group: spec.group ?? '', plural: spec.names?.plural ?? '' });
}

/** A CRD's `subresources.scale` (`.spec.replicas`-style JSON paths) as the served `/scale`; undefined without one. */
function crdScale(value: unknown): ScaleSubresource | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { specReplicasPath, statusReplicasPath, labelSelectorPath } = value as { specReplicasPath?: unknown; statusReplicasPath?: unknown; labelSelectorPath?: unknown };
  if (typeof specReplicasPath !== 'string' || typeof statusReplicasPath !== 'string') return undefined;
  const dotted = (path: string): string => path.replace(/^\./, '');
  return {
    specReplicasPath: dotted(specReplicasPath),
    statusReplicasPath: dotted(statusReplicasPath),
    selector(obj) {
      if (typeof labelSelectorPath !== 'string') return '';
      let node: unknown = obj;
      for (const key of dotted(labelSelectorPath).split('.')) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
      return typeof node === 'string' ? node : '';
    },
  };
}

/** The resource type a CRD defines. */
export function customResourceType(crd: KubeObject): ResourceType {
  const spec = specOf(crd);
  const names = spec.names ?? {};
  const group = spec.group ?? '';
  const kind = names.kind ?? '';
  const allVersions = spec.versions ?? [];
  const served = allVersions.filter((v) => v.served && v.name).map((v) => v.name as string);
  served.sort(compareVersionPriority);
  const storage = allVersions.find((v) => v.storage) ?? allVersions[0] ?? {};
  const storageVersion = storage.name ?? served[0] ?? 'v1';
  const byName = new Map(allVersions.map((v) => [v.name ?? '', v]));
  // Each served version prints its own additionalPrinterColumns and validates with its own schema,
  // held by this type: a changed or deleted CRD, or a stopped server, drops its type and so its
  // compiled schemas. The schemas were compiled when the CRD was validated; after a restart's
  // replay, on first use.
  const printers = new Map<string, TablePrinter>();
  const validators = new Map<string, SchemaValidatorLike | undefined>();
  const validator = (version: string): SchemaValidatorLike | undefined => {
    if (!validators.has(version)) {
      const schema = byName.get(version)?.schema?.openAPIV3Schema;
      validators.set(version, schema ? newSchemaValidator(schema) : undefined);
    }
    return validators.get(version);
  };
  // The schemas compiled when this CRD was validated are taken now: not compiled again.
  for (const name of served) {
    const schema = byName.get(name)?.schema?.openAPIV3Schema;
    const compiled = schema && takeCompiledValidator(schema);
    if (compiled) validators.set(name, compiled);
  }
  const scale = crdScale(storage.subresources?.scale);
  return {
    ...(scale && { scale }),
    group,
    versions: served,
    storageVersion,
    kind,
    listKind: names.listKind ?? `${kind}List`,
    plural: names.plural ?? '',
    singular: names.singular ?? kind.toLowerCase(),
    namespaced: spec.scope !== 'Cluster',
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    verbs: allVerbs,
    statusSubresource: storage.subresources?.status !== undefined && storage.subresources.status !== null,
    hasGeneration: true,
    custom: true,
    allowUnconditionalUpdate: false,
    nameRule: 'subdomain',
    returnsDeletedObject: true,
    extraSelectableFields: [],
    tablePrinter(version) {
      let printer = printers.get(version);
      if (!printer) printers.set(version, (printer = customResourcePrinter(byName.get(version)?.additionalPrinterColumns)));
      return printer;
    },
    decode(obj, version) {
      const v = validator(version);
      // Pruning reports what it removed: no copy of the object to compare with.
      const unknownFields = v ? v.prune(obj) : [];
      v?.applyDefaults?.(obj);
      return { unknownFields };
    },
    validate(obj, _old, version) {
      return validator(version)?.validate(obj) ?? [];
    },
    defaultOnRead(obj, version) {
      validator(version)?.applyDefaults?.(obj);
    },
    openApiSchema(version) {
      const schema = byName.get(version)?.schema?.openAPIV3Schema ?? { type: 'object' };
      const { apiVersion: _a, kind: _k, metadata: _m, ...properties } = (schema.properties ?? {}) as Record<string, unknown>;
      // The CRD's own keywords (required, description...) plus the envelope every kind has.
      const envelope = kindSchema(group, version, kind, properties);
      return { ...envelope, ...withoutProperties(schema), properties: envelope.properties };
    },
  };
}

function withoutProperties(schema: Record<string, unknown>): Record<string, unknown> {
  const { properties: _p, type: _t, ...rest } = schema;
  return rest;
}
