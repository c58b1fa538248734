/**
 * The built-in kinds: namespaces, configmaps, secrets, events (core/v1) and leases
 * (coordination.k8s.io/v1). Each is a {@link ResourceType} whose hooks hold its own rules.
 */
import type { KubeObject } from '@kubeloop/resource';
import { checkShape, decodeError, shapePropertiesSchema } from './builtin-decoding.js';
import type { FieldShape } from './builtin-decoding.js';
import { jsonEqual, setOwn } from '../json-value.js';
import type { NameRule } from '../objects/name-validation.js';
import { builtinTypeFields } from './resource-type.js';
import type { DecodeResult, ResourceType } from './resource-type.js';
import { forbiddenValue, invalidValue } from '../http/status-error.js';
import type { FieldProblem } from '../http/status-error.js';
import { configMapPrinter, eventPrinter, leasePrinter, namespacePrinter, secretPrinter } from '../table/builtin-printers.js';
import type { TablePrinter } from '../table/table-printer.js';

const typeMetaShape: Record<string, FieldShape> = { apiVersion: 'string', kind: 'string', metadata: 'any' };

/** A JSON schema for `/openapi/v3`, tagged with its group-version-kind. */
export function kindSchema(group: string, version: string, kind: string, properties: Record<string, unknown>, description?: string): Record<string, unknown> {
  return {
    type: 'object',
    description: description ?? `${kind} (served by kubeloop)`,
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
      metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }], default: {} },
      ...properties,
    },
    'x-kubernetes-group-version-kind': [{ group, kind, version }],
  };
}

function builtinDecoder(kind: string, shape: Record<string, FieldShape>): (obj: KubeObject, version: string) => DecodeResult {
  const full: Record<string, FieldShape> = { ...typeMetaShape, ...shape };
  return (obj, version) => {
    const unknownFields: string[] = [];
    const problem = checkShape(obj, full, '', kind, unknownFields);
    if (problem) throw decodeError(kind, version, problem);
    return { unknownFields };
  };
}

interface BuiltinInit {
  group: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  statusSubresource?: boolean;
  returnsDeletedObject?: boolean;
  nameRule?: NameRule;
  extraSelectableFields?: string[];
  /** The kind's fields besides apiVersion, kind and metadata: decoding checks them, the OpenAPI schema describes them. */
  shape: Record<string, FieldShape>;
  /** How `kubectl get` prints the kind. */
  printer: TablePrinter;
  validate?: ResourceType['validate'];
  prepareCreate?: ResourceType['prepareCreate'];
  prepareUpdate?: ResourceType['prepareUpdate'];
}

function builtin(init: BuiltinInit): ResourceType {
  const version = 'v1';
  const schema = kindSchema(init.group, version, init.kind, shapePropertiesSchema(init.shape));
  const type: ResourceType = {
    ...builtinTypeFields({ ...init, version }),
    statusSubresource: init.statusSubresource ?? false,
    hasGeneration: false,
    nameRule: init.nameRule ?? 'subdomain',
    returnsDeletedObject: init.returnsDeletedObject ?? false,
    extraSelectableFields: init.extraSelectableFields ?? [],
    tablePrinter: () => init.printer,
    decode: builtinDecoder(init.kind, init.shape),
    openApiSchema: () => schema,
  };
  if (init.validate) type.validate = init.validate;
  if (init.prepareCreate) type.prepareCreate = init.prepareCreate;
  if (init.prepareUpdate) type.prepareUpdate = init.prepareUpdate;
  return type;
}

/** Namespaces: cluster-scoped, named by DNS labels, `status.phase` Active or Terminating. */
export const namespaceType: ResourceType = builtin({
  group: '',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  shortNames: ['ns'],
  statusSubresource: true,
  returnsDeletedObject: true,
  nameRule: 'label',
  extraSelectableFields: ['status.phase'],
  printer: namespacePrinter,
  shape: { spec: { object: { finalizers: 'stringArray' } }, status: { object: { phase: 'string', conditions: 'any' } } },
  prepareCreate(obj) {
    const spec = (obj.spec ?? {}) as { finalizers?: string[] };
    obj.spec = { ...spec, finalizers: spec.finalizers ?? ['kubernetes'] };
    obj.status = { phase: 'Active' };
  },
});

const configKeyPattern = /^[-._a-zA-Z0-9]+$/;

function configKeyProblems(field: string, map: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const key of Object.keys((map ?? {}))) {
    if (key.length > 253 || !configKeyPattern.test(key)) {
      problems.push(
        invalidValue(
          `${field}[${key}]`,
          key,
          "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
        ),
      );
    }
  }
  return problems;
}

function immutableDataProblems(obj: KubeObject, old: KubeObject | undefined, fields: string[]): FieldProblem[] {
  if (!old || old.immutable !== true) return [];
  const problems: FieldProblem[] = [];
  if (obj.immutable !== true) problems.push(forbiddenValue('immutable', 'field is immutable when `immutable` is set'));
  for (const field of fields) {
    if (!jsonEqual(obj[field] ?? {}, old[field] ?? {})) problems.push(forbiddenValue(field, 'field is immutable when `immutable` is set'));
  }
  return problems;
}

/** The most a ConfigMap's or Secret's data values may hold together, in bytes (kube-apiserver's `MaxSecretSize`; keys do not count). */
export const maxDataBytes = 1024 * 1024;

/** Bytes of a data map's values (base64 values decoded). */
function dataBytes(map: unknown, base64: boolean): number {
  let total = 0;
  for (const v of Object.values((map ?? {}) as Record<string, string>)) total += base64 ? Buffer.from(v, 'base64').length : Buffer.byteLength(v);
  return total;
}

function tooLong(field: string): FieldProblem {
  return { reason: 'FieldValueTooLong', message: `Too long: must have at most ${maxDataBytes} bytes`, field };
}

/** ConfigMaps: `data` (strings), `binaryData` (base64), `immutable`. No generation. */
export const configMapType: ResourceType = builtin({
  group: '',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  shortNames: ['cm'],
  printer: configMapPrinter,
  shape: { data: 'stringMap', binaryData: 'bytesMap', immutable: 'boolean' },
  validate: (obj, old) => {
    const problems = [...configKeyProblems('data', obj.data), ...configKeyProblems('binaryData', obj.binaryData), ...immutableDataProblems(obj, old, ['data', 'binaryData'])];
    // kube-apiserver reports the whole object's path, which prints as `[]`.
    if (dataBytes(obj.data, false) + dataBytes(obj.binaryData, true) > maxDataBytes) problems.push(tooLong('[]'));
    return problems;
  },
});

/** On every write: `stringData` is merged into `data` (base64) and dropped; `type` defaults to Opaque. */
function prepareSecret(obj: KubeObject): void {
  const stringData = obj.stringData as Record<string, string> | undefined;
  if (stringData) {
    const data = { ...((obj.data ?? {}) as Record<string, string>) };
    for (const [k, v] of Object.entries(stringData)) setOwn(data, k, Buffer.from(v, 'utf8').toString('base64'));
    obj.data = data;
  }
  delete obj.stringData;
  obj.type ??= 'Opaque';
}

/** Secrets: `data` (base64), `stringData` (merged into data on write), `type` (default Opaque, immutable). */
export const secretType: ResourceType = builtin({
  group: '',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  extraSelectableFields: ['type'],
  printer: secretPrinter,
  shape: { data: 'bytesMap', stringData: 'stringMap', type: 'string', immutable: 'boolean' },
  validate: (obj, old) => {
    const problems = [...configKeyProblems('data', obj.data), ...immutableDataProblems(obj, old, ['data'])];
    if (dataBytes(obj.data, true) > maxDataBytes) problems.push(tooLong('data'));
    if (old && old.type !== obj.type) problems.push(invalidValue('type', obj.type, 'field is immutable'));
    return problems;
  },
  prepareCreate: prepareSecret,
  prepareUpdate: prepareSecret,
});

const objectReferenceShape: FieldShape = {
  object: { kind: 'string', namespace: 'string', name: 'string', uid: 'string', apiVersion: 'string', resourceVersion: 'string', fieldPath: 'string' },
};

/** Events (core/v1): what `kubectl describe` and event recorders write. `eventTime` is a MicroTime. */
export const eventType: ResourceType = builtin({
  group: '',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  shortNames: ['ev'],
  printer: eventPrinter,
  extraSelectableFields: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  shape: {
    involvedObject: objectReferenceShape,
    reason: 'string',
    message: 'string',
    source: { object: { component: 'string', host: 'string' } },
    firstTimestamp: 'time',
    lastTimestamp: 'time',
    count: 'integer',
    type: 'string',
    eventTime: 'microTime',
    series: 'any',
    action: 'string',
    related: objectReferenceShape,
    reportingComponent: 'string',
    reportingInstance: 'string',
  },
  validate(obj) {
    const involved = obj.involvedObject as { namespace?: string } | undefined;
    if (involved?.namespace && obj.metadata.namespace && involved.namespace !== obj.metadata.namespace) {
      return [invalidValue('involvedObject.namespace', involved.namespace, 'does not match event.namespace')];
    }
    return [];
  },
});

/**
 * Leases (coordination.k8s.io/v1): leader election. `acquireTime` and `renewTime` are MicroTime
 * with exactly 6 fractional digits; anything else is a 400, as on a real server.
 */
export const leaseType: ResourceType = builtin({
  group: 'coordination.k8s.io',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
  printer: leasePrinter,
  shape: {
    spec: {
      object: {
        holderIdentity: 'string',
        leaseDurationSeconds: 'integer',
        acquireTime: 'microTime',
        renewTime: 'microTime',
        leaseTransitions: 'integer',
        strategy: 'string',
        preferredHolder: 'string',
      },
    },
  },
  validate(obj) {
    const spec = (obj.spec ?? {}) as { leaseDurationSeconds?: number; leaseTransitions?: number };
    const problems: FieldProblem[] = [];
    if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds !== null && spec.leaseDurationSeconds <= 0) {
      problems.push(invalidValue('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
    }
    if (spec.leaseTransitions !== undefined && spec.leaseTransitions !== null && spec.leaseTransitions < 0) {
      problems.push(invalidValue('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
    }
    return problems;
  },
});
