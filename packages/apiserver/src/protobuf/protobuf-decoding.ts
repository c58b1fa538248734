/**
 * Decoding of `application/vnd.kubernetes.protobuf` request bodies for the built-in kinds.
 * kubectl's typed commands (`create configmap`, `create secret`, `create namespace`) send
 * protobuf; this server answers in JSON (which every client accepts) but must read them.
 *
 * The body is the `k8s\0` magic plus a `runtime.Unknown` envelope whose `raw` field holds the
 * object's message, read by its layout (`message-specs.ts`) over the wire format
 * (`protobuf-wire.ts`). Output is the object's JSON form (empty strings and zero times omitted,
 * as Go's `omitempty` does).
 */
import { setOwn } from '../json-value.js';
import { badRequest } from '../http/status-error.js';
import { messageSpecOf } from './message-specs.js';
import type { MapSpec, MessageSpec, Scalar } from './message-specs.js';
import { fields } from './protobuf-wire.js';
import type { Reader } from './protobuf-wire.js';

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
    const spec = messageSpecOf(apiVersion, kind);
    if (!spec) throw badRequest(`protobuf is not supported for ${apiVersion}/${kind} by this server: send application/json`);
    return { apiVersion, kind, ...decodeMessage(raw ?? Buffer.alloc(0), spec) };
  } catch (err) {
    if (err instanceof Error && err.name === 'StatusError') throw err;
    throw badRequest(`the object provided is unrecognized: protobuf: ${(err as Error).message}`);
  }
}
