/**
 * The layouts of the protobuf messages this server reads: each field by number with its JSON name
 * and type, as in `k8s.io/api/.../generated.proto`. The small kinds kubectl's typed commands send
 * are written out here; the other built-in kinds come from the generated layouts.
 */
import { protobufLayouts } from '../builtin/protobuf-layouts.generated.js';
import { protobufMessageName } from '../builtin/protobuf-layout.js';

export type Scalar = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'microTime' | 'rawJson' | 'double' | 'float' | 'quantity' | 'intOrString' | 'rawExtension';

export interface FieldSpec {
  readonly name: string;
  readonly type: Scalar | MessageSpec | MapSpec;
  readonly repeated?: boolean;
  /** Keep a zero/empty value (pointer fields in Go). */
  readonly keepZero?: boolean;
  /** An embedded Go struct: its fields are merged into the enclosing object. */
  readonly inline?: boolean;
}
export interface MessageSpec {
  readonly fields: Readonly<Record<number, FieldSpec>>;
}
export interface MapSpec {
  readonly map: 'string' | 'bytes' | Scalar | MessageSpec;
}

const time = (name: string): FieldSpec => ({ name, type: 'time' });
const str = (name: string): FieldSpec => ({ name, type: 'string' });
const int = (name: string, keepZero = false): FieldSpec => ({ name, type: 'int', keepZero });
const stringMap = (name: string): FieldSpec => ({ name, type: { map: 'string' } });
const bytesMap = (name: string): FieldSpec => ({ name, type: { map: 'bytes' } });

const ownerReference: MessageSpec = {
  fields: { 1: str('kind'), 3: str('name'), 4: str('uid'), 5: str('apiVersion'), 6: { name: 'controller', type: 'bool', keepZero: true }, 7: { name: 'blockOwnerDeletion', type: 'bool', keepZero: true } },
};
const managedFieldsEntry: MessageSpec = {
  fields: {
    1: str('manager'),
    2: str('operation'),
    3: str('apiVersion'),
    4: time('time'),
    6: str('fieldsType'),
    7: { name: 'fieldsV1', type: { fields: { 1: { name: 'raw', type: 'rawJson' } } } },
    8: str('subresource'),
  },
};
const objectMeta: MessageSpec = {
  fields: {
    1: str('name'),
    2: str('generateName'),
    3: str('namespace'),
    4: str('selfLink'),
    5: str('uid'),
    6: str('resourceVersion'),
    7: int('generation'),
    8: time('creationTimestamp'),
    9: time('deletionTimestamp'),
    10: int('deletionGracePeriodSeconds', true),
    11: stringMap('labels'),
    12: stringMap('annotations'),
    13: { name: 'ownerReferences', type: ownerReference, repeated: true },
    14: { name: 'finalizers', type: 'string', repeated: true },
    17: { name: 'managedFields', type: managedFieldsEntry, repeated: true },
  },
};
const objectReference: MessageSpec = {
  fields: { 1: str('kind'), 2: str('namespace'), 3: str('name'), 4: str('uid'), 5: str('apiVersion'), 6: str('resourceVersion'), 7: str('fieldPath') },
};
const metadata: FieldSpec = { name: 'metadata', type: objectMeta };

const deleteOptions: MessageSpec = {
  fields: {
    1: int('gracePeriodSeconds', true),
    2: { name: 'preconditions', type: { fields: { 1: str('uid'), 2: str('resourceVersion') } } },
    3: { name: 'orphanDependents', type: 'bool', keepZero: true },
    4: str('propagationPolicy'),
    5: { name: 'dryRun', type: 'string', repeated: true },
  },
};

/** Message layouts by `apiVersion/kind`. */
const kinds: Readonly<Record<string, MessageSpec>> = {
  'v1/DeleteOptions': deleteOptions,
  'meta.k8s.io/v1/DeleteOptions': deleteOptions,
  'v1/ConfigMap': { fields: { 1: metadata, 2: stringMap('data'), 3: bytesMap('binaryData'), 4: { name: 'immutable', type: 'bool', keepZero: true } } },
  'v1/Secret': { fields: { 1: metadata, 2: bytesMap('data'), 3: str('type'), 4: stringMap('stringData'), 5: { name: 'immutable', type: 'bool', keepZero: true } } },
  'v1/Namespace': {
    fields: {
      1: metadata,
      2: { name: 'spec', type: { fields: { 1: { name: 'finalizers', type: 'string', repeated: true } } } },
      3: { name: 'status', type: { fields: { 1: str('phase') } } },
    },
  },
  'coordination.k8s.io/v1/Lease': {
    fields: {
      1: metadata,
      2: {
        name: 'spec',
        type: {
          fields: {
            1: { name: 'holderIdentity', type: 'string', keepZero: true },
            2: int('leaseDurationSeconds', true),
            3: { name: 'acquireTime', type: 'microTime' },
            4: { name: 'renewTime', type: 'microTime' },
            5: int('leaseTransitions', true),
            6: str('strategy'),
            7: str('preferredHolder'),
          },
        },
      },
    },
  },
  'v1/Event': {
    fields: {
      1: metadata,
      2: { name: 'involvedObject', type: objectReference },
      3: str('reason'),
      4: str('message'),
      5: { name: 'source', type: { fields: { 1: str('component'), 2: str('host') } } },
      6: time('firstTimestamp'),
      7: time('lastTimestamp'),
      8: int('count'),
      9: str('type'),
      10: { name: 'eventTime', type: 'microTime' },
      11: { name: 'series', type: { fields: { 1: int('count'), 2: { name: 'lastObservedTime', type: 'microTime' } } } },
      12: str('action'),
      13: { name: 'related', type: objectReference },
      14: str('reportingComponent'),
      15: str('reportingInstance'),
    },
  },
};

const labelSelector: MessageSpec = {
  fields: {
    1: stringMap('matchLabels'),
    2: { name: 'matchExpressions', type: { fields: { 1: str('key'), 2: str('operator'), 3: { name: 'values', type: 'string', repeated: true } } }, repeated: true },
  },
};

/** apimachinery's types, which k8s.io/api's messages refer to. */
const apimachineryTypes: Readonly<Record<string, Scalar | MessageSpec>> = {
  'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta': objectMeta,
  'k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta': { fields: {} },
  'k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference': ownerReference,
  'k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector': labelSelector,
  'k8s.io.apimachinery.pkg.apis.meta.v1.Condition': {
    fields: { 1: str('type'), 2: str('status'), 3: int('observedGeneration'), 4: time('lastTransitionTime'), 5: { name: 'reason', type: 'string' }, 6: { name: 'message', type: 'string', keepZero: true } },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'microTime',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intOrString',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'rawExtension',
};

// Zero is a meaningful value of these pointer fields (`kubectl create deployment --replicas=0`);
// other zero numbers, empty strings and false are dropped, as Go's omitempty would.
const keepZeroFields = new Set(['replicas']);
const generatedSpecs = new Map<string, MessageSpec>();

function generatedType(type: string): Scalar | MessageSpec | MapSpec {
  const map = /^map<(.+)>$/.exec(type);
  if (map) {
    const value = generatedType(map[1] as string);
    return { map: typeof value === 'object' && 'map' in value ? 'string' : value };
  }
  switch (type) {
    case 'string':
    case 'bytes':
    case 'bool':
    case 'double':
    case 'float':
      return type;
    case 'int32':
    case 'int64':
      return 'int';
    default:
      return apimachineryTypes[type] ?? generatedSpec(type) ?? { fields: {} };
  }
}

/** The MessageSpec of a generated message (built once; undefined when there is no such message). */
function generatedSpec(name: string): MessageSpec | undefined {
  const cached = generatedSpecs.get(name);
  if (cached) return cached;
  const layout = protobufLayouts[name];
  if (!layout) return undefined;
  const fields: Record<number, FieldSpec> = {};
  const spec: MessageSpec = { fields };
  generatedSpecs.set(name, spec);
  for (const [number, field] of Object.entries(layout)) {
    fields[Number(number)] = { name: field[0], type: generatedType(field[1]), repeated: field[2] === 'repeated', inline: field[2] === 'inline', keepZero: keepZeroFields.has(field[0]) };
  }
  return spec;
}


/** The layout of an object's message by its apiVersion and kind; undefined when this server has none. */
export function messageSpecOf(apiVersion: string, kind: string): MessageSpec | undefined {
  return kinds[`${apiVersion}/${kind}`] ?? generatedSpec(protobufMessageName(apiVersion, kind));
}
