/**
 * Reading request bodies: bounded by `maxBodyBytes` (413 like the real server's 3 MiB limit),
 * decoded by content type (JSON, YAML, protobuf for built-ins; 415 for anything else).
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { decodeProtobufObject, protobufMediaType } from './protobuf-decoding.js';
import { badRequest, entityTooLarge, unsupportedMediaType } from './status-error.js';

/** Beyond this many bytes an oversized body is not even drained: the connection is cut. */
const maxDrainBytes = 64 * 1024 * 1024;

/** The media type of a request, lower-case, without parameters ('' when absent). */
export function mediaTypeOf(req: IncomingMessage): string {
  const header = req.headers['content-type'] ?? '';
  return (header.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * Reads the whole body as text. An oversized body is drained (so that the client reads the 413
 * rather than a reset) and rejected with 413.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number.isFinite(declared) && declared > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (tooLarge) {
        chunks.length = 0;
        if (size > maxDrainBytes) req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) reject(entityTooLarge(limit));
      else resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

/** Decodes an object body (POST/PUT) by content type: JSON, YAML, or protobuf for built-in kinds. */
export function decodeObjectBody(body: Buffer, mediaType: string, kind: string): unknown {
  if (mediaType === protobufMediaType) return decodeProtobufObject(body);
  const text = body.toString('utf8');
  if (mediaType === '' || mediaType === 'application/json' || mediaType === '*/*') {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${(err as Error).message}`);
    }
  }
  if (mediaType === 'application/yaml' || mediaType === 'application/x-yaml' || mediaType === 'text/yaml') {
    try {
      return parseYaml(text);
    } catch (err) {
      throw badRequest(`the object provided is unrecognized (must be of type ${kind}): yaml: ${(err as Error).message}`);
    }
  }
  throw unsupportedMediaType(['application/json', 'application/yaml', protobufMediaType]);
}
