/**
 * Sends a JSON body given as pieces (a list's head, each item, its tail) without joining it into
 * one string: a body that fits in one chunk is sent whole with `Content-Length`; a larger one is
 * sent chunked, one slice at a time as the client takes it (see `response-pump.ts`), so a LIST of
 * 100 MB costs the server about one slice per client rather than two copies of the body.
 */
import type { ServerResponse } from 'node:http';
import { pumpResponse, sliceBytes } from './response-pump.js';

/** Characters of small pieces gathered into one part (a larger piece is a part of its own, written in slices). */
export const responseChunkChars = sliceBytes;

/** `{head}item,item,...{tail}`: the pieces of a JSON list body, produced lazily. */
export function* jsonListPieces(head: string, items: Iterable<string>, tail: string): Generator<string> {
  yield head;
  let first = true;
  for (const item of items) {
    if (!first) yield ',';
    yield item;
    first = false;
  }
  yield tail;
}

/**
 * Gives the pieces joined into parts of about `responseChunkChars`, undefined at the end; a piece
 * that would pass the size starts the next part, so a large piece is a part of its own (not copied).
 */
function partsOf(pieces: Iterator<string>): () => string | undefined {
  let carry: string | undefined;
  let done = false;
  return () => {
    const parts: string[] = [];
    let chars = 0;
    while (chars < responseChunkChars) {
      let piece = carry;
      carry = undefined;
      if (piece === undefined) {
        const next = done ? undefined : pieces.next();
        if (next === undefined || next.done) {
          done = true;
          break;
        }
        piece = next.value;
      }
      if (parts.length > 0 && chars + piece.length > responseChunkChars) {
        carry = piece;
        break;
      }
      parts.push(piece);
      chars += piece.length;
    }
    if (parts.length === 0) return undefined;
    return parts.length === 1 ? parts[0] : parts.join('');
  };
}

/** Sends `pieces` as a JSON response with status `code`. */
export function sendJsonPieces(res: ServerResponse, code: number, pieces: Iterable<string>, headers?: Record<string, string | string[]>): void {
  const next = partsOf(pieces[Symbol.iterator]());
  const first = next() ?? '';
  const second = next();
  if (second === undefined) return sendJsonText(res, code, first, headers);
  res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
  const ahead: (string | undefined)[] = [first, second];
  pumpResponse(res, () => (ahead.length > 0 ? ahead.shift() : next()), () => res.end());
}

/**
 * Sends a JSON body with its `Content-Length`; one larger than a slice (a big object, an OpenAPI
 * document) is written a slice at a time as the client reads, like a list.
 */
export function sendJsonText(res: ServerResponse, code: number, body: string, headers?: Record<string, string | string[]>): void {
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers });
  if (body.length <= sliceBytes) {
    res.end(body);
    return;
  }
  let part: string | undefined = body;
  pumpResponse(
    res,
    () => {
      const next = part;
      part = undefined;
      return next;
    },
    () => res.end(),
  );
}
