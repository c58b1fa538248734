/**
 * Reading request bodies: bounded by `maxBodyBytes` (413 like the real server's 3 MiB limit),
 * decoded by content type (JSON, YAML, protobuf for built-ins; 415 for anything else).
 */
import type { IncomingMessage } from 'node:http';
import type { RequestBodyParser } from './request-body-parser.js';
import type { YamlParsed } from '../yaml/yaml-text.js';
import { decodeProtobufObject, protobufMediaType } from '../protobuf/protobuf-decoding.js';
import { maxNestingDepth, nestingTooDeep, parseJsonText } from './json-text.js';
import type { JsonTextParsed } from './json-text.js';
import { badRequest, entityTooLarge, unsupportedMediaType } from './status-error.js';
import type { StatusError } from './status-error.js';

/** Beyond this many bytes of an oversized body the connection is cut (the 413 was sent long before). */
const maxDrainBytes = 64 * 1024 * 1024;

/** The media type of a request, lower-case, without parameters ('' when absent). */
export function mediaTypeOf(req: IncomingMessage): string {
  const header = req.headers['content-type'] ?? '';
  return (header.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * Reads the whole body. An oversized one (declared, or counted as it arrives, as a chunked body
 * is) is rejected with 413 at once, so the answer goes out while the client is still sending;
 * the rest is read and dropped (a socket closed on unread data is reset, and the client would
 * see the reset rather than the 413) up to {@link maxDrainBytes}, then the connection is cut.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    const refuse = (): void => {
      tooLarge = true;
      chunks.length = 0;
      reject(entityTooLarge(limit));
    };
    if (Number.isFinite(declared) && declared > limit) refuse();
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (tooLarge) {
        if (size > maxDrainBytes) req.destroy();
        return;
      }
      if (size > limit) refuse();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (!tooLarge) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

/** A decoded body or patch, and the keys it repeats within one object (when asked for). */
export interface DecodedBody {
  readonly value: unknown;
  /** Field paths of repeated keys, in document order (JSON only; YAML refuses them). */
  readonly duplicateFields: readonly string[];
}

/**
 * Parses JSON request text with the limits of `json-text.ts`; `describe` turns a problem into the
 * 400 to answer (its wording differs between bodies and patches).
 */
export function parseJsonRequest(text: string, findDuplicates: boolean, describe: (problem: string) => StatusError): DecodedBody {
  return jsonRequestBody(parseJsonText(text, findDuplicates), describe);
}

/** Parsed JSON request text as a decoded body, or the 400 `describe` words. */
export function jsonRequestBody(parsed: JsonTextParsed, describe: (problem: string) => StatusError): DecodedBody {
  if (!parsed.ok) throw describe(parsed.problem);
  return { value: parsed.value, duplicateFields: parsed.duplicateFields };
}

/** A parsed YAML body as a decoded body, or the 400 `describe` words (duplicate keys are a parse error in YAML). */
export function yamlRequestBody(parsed: YamlParsed, describe: (problem: string) => StatusError): DecodedBody {
  if (parsed.ok) return { value: parsed.value, duplicateFields: [] };
  const problem = parsed.problem;
  if (problem.kind === 'too-deep') throw describe(`exceeded max depth of ${maxNestingDepth}`);
  if (problem.kind === 'duplicate-key') throw describe(`unmarshal errors:\n  line ${problem.line}: key ${problem.key} already set in map`);
  throw describe(problem.message);
}

/**
 * Decodes an object body (POST/PUT) by content type: JSON, YAML, or protobuf for built-in kinds.
 * `findDuplicates` (for `fieldValidation` Strict and Warn) reports repeated keys of a JSON body;
 * `bodies` parses large JSON and YAML bodies off the event loop.
 */
export async function decodeObjectBody(body: Buffer, mediaType: string, kind: string, findDuplicates: boolean, bodies: RequestBodyParser): Promise<DecodedBody> {
  const unrecognized = `the object provided is unrecognized (must be of type ${kind})`;
  if (mediaType === protobufMediaType) {
    const value = decodeProtobufObject(body);
    if (nestingTooDeep(value)) throw badRequest(`${unrecognized}: exceeded max depth of ${maxNestingDepth}`);
    return { value, duplicateFields: [] };
  }
  const text = body.toString('utf8');
  // No Content-Type is not JSON: a web page can send a body without one and without a CORS preflight.
  if (mediaType === 'application/json' || mediaType === '*/*') {
    return jsonRequestBody(await bodies.parseJson(text, findDuplicates), (problem) => badRequest(`${unrecognized}: couldn't get version/kind; json parse error: ${problem}`));
  }
  if (mediaType === 'application/yaml' || mediaType === 'application/x-yaml' || mediaType === 'text/yaml') {
    return yamlRequestBody(await bodies.parseYaml(text), (problem) => badRequest(`${unrecognized}: yaml: ${problem}`));
  }
  throw unsupportedMediaType(['application/json', 'application/yaml', protobufMediaType]);
}
