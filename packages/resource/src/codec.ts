/**
 * Codecs turn wire text into objects and back. Decoding checks only the minimal shape every
 * Kubernetes object has (apiVersion, kind, metadata.name) and, for a kind's codec, that the object
 * is of that kind; schema validation is the API server's job.
 */
import { parseDocument, stringify } from 'yaml';
import { CodecError } from './errors.js';
import type { KubeObject } from './object.js';

/** A wire encoding. */
export type Encoding = 'json' | 'yaml';

/** Decodes and encodes objects of one kind (or of any kind) in one encoding. */
export interface Codec<T extends KubeObject = KubeObject> {
  readonly encoding: Encoding;
  /** The media type for `Content-Type` / `Accept`: `application/json` or `application/yaml`. */
  readonly contentType: string;
  /**
   * Decodes one object from text or UTF-8 bytes.
   * @throws CodecError on malformed input, a value that is not an object, a missing
   *   apiVersion/kind/metadata.name, or (for a kind's codec) an object of another kind.
   */
  decode(input: string | Uint8Array): T;
  /** Encodes one object. */
  encode(object: T): string;
}

/** Options of {@link JsonCodec} and {@link YamlCodec}. */
export interface CodecOptions {
  /**
   * The apiVersion and kind decoded objects must have (a `Kind` fits here). Default: none,
   * any apiVersion and kind is accepted.
   */
  readonly expect?: { readonly apiVersion: string; readonly kind: string } | undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function toText(input: string | Uint8Array): string {
  if (typeof input === 'string') return input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  try {
    // TextDecoder drops a leading byte order mark.
    return utf8.decode(input);
  } catch (err) {
    throw new CodecError('cannot decode object: input is not valid UTF-8', { cause: err });
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Checks the shape every object has and returns the value typed as an object. An object without
 * `metadata.name` but with `metadata.generateName` passes: it is a create request.
 */
function checkShape(value: unknown, text: string, expect: CodecOptions['expect']): KubeObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CodecError(`cannot decode object: expected a JSON object, got ${describe(value)}`, { input: text });
  }
  const obj = value as Record<string, unknown>;
  const missing: string[] = [];
  if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '') missing.push('apiVersion');
  if (typeof obj.kind !== 'string' || obj.kind === '') missing.push('kind');
  const metadata = obj.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    missing.push('metadata');
  } else {
    const meta = metadata as Record<string, unknown>;
    const named = typeof meta.name === 'string' && meta.name !== '';
    const generated = typeof meta.generateName === 'string' && meta.generateName !== '';
    if (!named && !generated) missing.push('metadata.name');
  }
  if (missing.length > 0) {
    throw new CodecError(`cannot decode object: missing ${missing.join(', ')}`, { input: text });
  }
  if (expect && (obj.apiVersion !== expect.apiVersion || obj.kind !== expect.kind)) {
    throw new CodecError(
      `cannot decode object: expected apiVersion "${expect.apiVersion}" kind "${expect.kind}", got apiVersion "${String(obj.apiVersion)}" kind "${String(obj.kind)}"`,
      { input: text },
    );
  }
  return obj as KubeObject;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CodecError(`cannot decode object: malformed JSON: ${(err as Error).message}`, { cause: err, input: text });
  }
}

function parseYaml(text: string): unknown {
  try {
    const doc = parseDocument(text);
    const first = doc.errors[0];
    if (first) throw first;
    return doc.toJS();
  } catch (err) {
    throw new CodecError(`cannot decode object: malformed YAML: ${(err as Error).message}`, { cause: err, input: text });
  }
}

/**
 * Decodes one object from JSON text or UTF-8 bytes, checking only its shape.
 * @throws CodecError as {@link Codec.decode}.
 */
export function decodeObject(input: string | Uint8Array): KubeObject {
  const text = toText(input);
  return checkShape(parseJson(text), text, undefined);
}

/** A text format: the names it goes by on the wire, its parser and its printer. */
export interface TextFormat<E extends Encoding, M extends string> {
  readonly encoding: E;
  readonly contentType: M;
  /** @throws CodecError on malformed text. */
  parse(text: string): unknown;
  print(object: KubeObject): string;
}

const jsonFormat: TextFormat<'json', 'application/json'> = {
  encoding: 'json',
  contentType: 'application/json',
  parse: parseJson,
  print: (object) => JSON.stringify(object),
};

const yamlFormat: TextFormat<'yaml', 'application/yaml'> = {
  encoding: 'yaml',
  contentType: 'application/yaml',
  parse: parseYaml,
  print: (object) => stringify(object),
};

/**
 * What both codecs share: decoding is text -> parsed value -> shape check, encoding is the format's
 * printer. Each codec brings only its format. Exported for the declaration files, not from the index.
 */
export abstract class FormatCodec<T extends KubeObject, E extends Encoding, M extends string> implements Codec<T> {
  readonly encoding: E;
  readonly contentType: M;
  readonly #format: TextFormat<E, M>;
  readonly #expect: CodecOptions['expect'];

  protected constructor(format: TextFormat<E, M>, options: CodecOptions | undefined) {
    this.encoding = format.encoding;
    this.contentType = format.contentType;
    this.#format = format;
    this.#expect = options?.expect;
  }

  decode(input: string | Uint8Array): T {
    const text = toText(input);
    return checkShape(this.#format.parse(text), text, this.#expect) as T;
  }

  encode(object: T): string {
    return this.#format.print(object);
  }
}

/** The JSON codec (`application/json`). */
export class JsonCodec<T extends KubeObject = KubeObject> extends FormatCodec<T, 'json', 'application/json'> {
  constructor(options?: CodecOptions) {
    super(jsonFormat, options);
  }
}

/**
 * The YAML codec (`application/yaml`), one document per object. Uses the YAML 1.2 core schema,
 * so values decode to the same JSON types the API server would see.
 */
export class YamlCodec<T extends KubeObject = KubeObject> extends FormatCodec<T, 'yaml', 'application/yaml'> {
  constructor(options?: CodecOptions) {
    super(yamlFormat, options);
  }
}
