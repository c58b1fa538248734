/**
 * Decoding of `application/vnd.kubernetes.protobuf` request bodies for the built-in kinds.
 * kubectl's typed commands (`create configmap`, `create secret`, `create namespace`) send
 * protobuf; this server answers in JSON (which every client accepts) but must read them.
 *
 * The body is the `k8s\0` magic plus a `runtime.Unknown` envelope whose `raw` field holds the
 * object's message; each kind's fields are listed below by field number, as in
 * `k8s.io/api/.../generated.proto`. Output is the object's JSON form (empty strings and zero
 * times omitted, as Go's `omitempty` does).
 */
import { protobufLayouts } from './builtin/protobuf-layouts.generated.js';
import { protobufMessageName } from './builtin/protobuf-layout.js';
import { setOwn } from './json-value.js';
import { badRequest } from './status-error.js';

type Scalar = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'microTime' | 'rawJson' | 'double' | 'float' | 'quantity' | 'intOrString' | 'rawExtension';

interface FieldSpec {
  readonly name: string;
  readonly type: Scalar | MessageSpec | MapSpec;
  readonly repeated?: boolean;
  /** Keep a zero/empty value (pointer fields in Go). */
  readonly keepZero?: boolean;
  /** An embedded Go struct: its fields are merged into the enclosing object. */
  readonly inline?: boolean;
}
interface MessageSpec {
  readonly fields: Readonly<Record<number, FieldSpec>>;
}
interface MapSpec {
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

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer, readonly end: number = buf.length) {}

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const byte = this.buf[this.pos++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new Error('varint too long');
    }
  }

  bytes(): Buffer {
    const length = Number(this.varint());
    if (this.pos + length > this.end) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
  }
}

function fields(buf: Buffer, visit: (field: number, wireType: number, reader: Reader) => void): void {
  const reader = new Reader(buf);
  while (reader.pos < reader.end) {
    const tag = Number(reader.varint());
    visit(tag >>> 3, tag & 7, reader);
  }
}

function formatTime(buf: Buffer, micro: boolean): string | undefined {
  let seconds = 0n;
  let nanos = 0;
  fields(buf, (field, wireType, reader) => {
    if (field === 1 && wireType === 0) seconds = BigInt.asIntN(64, reader.varint());
    else if (field === 2 && wireType === 0) nanos = Number(BigInt.asIntN(32, reader.varint()));
    else reader.skip(wireType);
  });
  if (seconds === 0n && nanos === 0) return undefined;
  const iso = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return micro ? `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${iso}Z`;
}

function decodeMap(buf: Buffer, valueType: MapSpec['map']): [string, unknown] {
  let key = '';
  let value: unknown = valueType === 'string' || valueType === 'bytes' ? '' : undefined;
  fields(buf, (field, wireType, reader) => {
    if (field === 1 && wireType === 2) key = reader.bytes().toString('utf8');
    else if (field === 2) value = decodeValue(reader, wireType, valueType);
    else reader.skip(wireType);
  });
  return [key, value];
}

function decodeQuantity(buf: Buffer): string {
  let text = '';
  fields(buf, (field, wireType, reader) => {
    if (field === 1 && wireType === 2) text = reader.bytes().toString('utf8');
    else reader.skip(wireType);
  });
  return text;
}

function decodeIntOrString(buf: Buffer): number | string {
  let type = 0;
  let intVal = 0;
  let strVal = '';
  fields(buf, (field, wireType, reader) => {
    if (field === 1 && wireType === 0) type = Number(reader.varint());
    else if (field === 2 && wireType === 0) intVal = Number(BigInt.asIntN(32, reader.varint()));
    else if (field === 3 && wireType === 2) strVal = reader.bytes().toString('utf8');
    else reader.skip(wireType);
  });
  return type === 1 ? strVal : intVal;
}

/** One value of a field of `type` at the reader (the field's tag already read). */
function decodeValue(reader: Reader, wireType: number, type: Scalar | MessageSpec): unknown {
  if (typeof type === 'object') return decodeMessage(reader.bytes(), type);
  switch (type) {
    case 'string':
      return reader.bytes().toString('utf8');
    case 'bytes':
      return reader.bytes().toString('base64');
    case 'rawJson':
      return JSON.parse(reader.bytes().toString('utf8')) as unknown;
    case 'rawExtension': {
      const raw = decodeQuantity(reader.bytes());
      return raw === '' ? undefined : (JSON.parse(raw) as unknown);
    }
    case 'int':
      return Number(BigInt.asIntN(64, reader.varint()));
    case 'bool':
      return reader.varint() !== 0n;
    case 'double': {
      if (wireType !== 1) return reader.skip(wireType);
      const value = reader.buf.readDoubleLE(reader.pos);
      reader.pos += 8;
      return value;
    }
    case 'float': {
      if (wireType !== 5) return reader.skip(wireType);
      const value = reader.buf.readFloatLE(reader.pos);
      reader.pos += 4;
      return value;
    }
    case 'quantity':
      return decodeQuantity(reader.bytes());
    case 'intOrString':
      return decodeIntOrString(reader.bytes());
    case 'time':
    case 'microTime':
      return formatTime(reader.bytes(), type === 'microTime');
  }
}

function decodeMessage(buf: Buffer, spec: MessageSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  fields(buf, (field, wireType, reader) => {
    const f = spec.fields[field];
    if (!f) return reader.skip(wireType);
    const type = f.type;
    if (typeof type === 'object' && 'map' in type) {
      if (wireType !== 2) return reader.skip(wireType);
      const [k, v] = decodeMap(reader.bytes(), type.map);
      const map = (out[f.name] ??= {}) as Record<string, unknown>;
      setOwn(map, k, v);
      return;
    }
    const value = decodeValue(reader, wireType, type);
    if (f.inline) {
      Object.assign(out, value);
      return;
    }
    if (f.repeated) {
      ((out[f.name] ??= []) as unknown[]).push(value);
      return;
    }
    if (value === undefined) return;
    if (!f.keepZero && (value === '' || value === 0 || value === false)) return;
    out[f.name] = value;
  });
  return out;
}

/** The protobuf media type. */
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

/** Decodes a protobuf body into the object's JSON form; 415 for kinds without a layout here, 400 for a malformed body. */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (body.length < 4 || body.toString('latin1', 0, 4) !== 'k8s\u0000') throw badRequest('protobuf body does not start with the k8s magic number');
  let apiVersion = '';
  let kind = '';
  let raw: Buffer | undefined;
  try {
    fields(body.subarray(4), (field, wireType, reader) => {
      if (field === 1 && wireType === 2) {
        fields(reader.bytes(), (f, w, r) => {
          if (f === 1 && w === 2) apiVersion = r.bytes().toString('utf8');
          else if (f === 2 && w === 2) kind = r.bytes().toString('utf8');
          else r.skip(w);
        });
      } else if (field === 2 && wireType === 2) raw = reader.bytes();
      else reader.skip(wireType);
    });
    const spec = kinds[`${apiVersion}/${kind}`] ?? generatedSpec(protobufMessageName(apiVersion, kind));
    if (!spec) throw badRequest(`protobuf is not supported for ${apiVersion}/${kind} by this server: send application/json`);
    return { apiVersion, kind, ...decodeMessage(raw ?? Buffer.alloc(0), spec) };
  } catch (err) {
    if (err instanceof Error && err.name === 'StatusError') throw err;
    throw badRequest(`the object provided is unrecognized: protobuf: ${(err as Error).message}`);
  }
}
