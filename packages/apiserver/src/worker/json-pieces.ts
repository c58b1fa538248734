/**
 * A large JSON value as the worker thread sends it back: cut into pieces of about
 * {@link jsonPieceChars}, which the event loop parses a few per turn ({@link joinJsonPieces})
 * instead of in one `JSON.parse` (a patched Deployment of 20,000 containers with its managedFields,
 * 1.7 MB: 30 to 50 ms of the loop, while every other client waits). Each piece is JSON text, so
 * the loop still parses with `JSON.parse`, which is many times faster than deserializing a
 * structured clone of many small members.
 */
import { betweenWriteSteps } from '../objects/write-steps.js';

/** Where a piece goes: object keys and array indexes from the root. */
export type JsonPath = readonly (string | number)[];

export type JsonPiece =
  /** The value at `at` (the root when empty); a container cut into pieces comes as an empty one, its members after it. */
  | { readonly at: JsonPath; readonly json: string }
  /** Members of the container at `into`, in order: an object's keys, or an array's next items. */
  | { readonly into: JsonPath; readonly json: string };

/** The most characters of JSON a piece holds, but for a container's brackets (a long scalar member is a piece of its own). */
export const jsonPieceChars = 16 * 1024;

/** How long the loop parses pieces before it lets other clients in. */
const turnBudgetMs = 8;

/** Cuts `value` into pieces of about `maxChars` (one piece when it is that small). */
export function cutJson(value: unknown, maxChars: number = jsonPieceChars): JsonPiece[] {
  const pieces: JsonPiece[] = [];
  cut(value, [], JSON.stringify(value) ?? 'null', maxChars, pieces);
  return pieces;
}

function cut(value: unknown, path: JsonPath, json: string, maxChars: number, pieces: JsonPiece[]): void {
  if (json.length <= maxChars || typeof value !== 'object' || value === null) {
    pieces.push({ at: path, json });
    return;
  }
  const isArray = Array.isArray(value);
  pieces.push({ at: path, json: isArray ? '[]' : '{}' });
  let group: string[] = [];
  let chars = 0;
  const flush = (): void => {
    if (group.length > 0) pieces.push({ into: path, json: isArray ? `[${group.join(',')}]` : `{${group.join(',')}}` });
    group = [];
    chars = 0;
  };
  const members: [string | number, unknown][] = isArray ? (value as unknown[]).map((member, index) => [index, member]) : Object.entries(value);
  for (const [key, member] of members) {
    // As JSON.stringify: an undefined member of an object is left out, of an array is null.
    const memberJson = JSON.stringify(member) ?? (isArray ? 'null' : undefined);
    if (memberJson === undefined) continue;
    if (memberJson.length > maxChars && typeof member === 'object' && member !== null) {
      flush();
      cut(member, [...path, key], memberJson, maxChars, pieces);
      continue;
    }
    const text = isArray ? memberJson : `${JSON.stringify(key)}:${memberJson}`;
    if (chars + text.length > maxChars) flush();
    group.push(text);
    chars += text.length + 1;
  }
  flush();
}

/** Sets a member as `JSON.parse` would: an own property even when it is named `__proto__`. */
function setMember(container: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
  else (container as Record<string | number, unknown>)[key] = value;
}

function containerAt(root: unknown, path: JsonPath): Record<string, unknown> | unknown[] {
  let node = root;
  for (const key of path) node = (node as Record<string | number, unknown>)[key];
  return node as Record<string, unknown> | unknown[];
}

/** The value of `cutJson`'s pieces, parsed about {@link turnBudgetMs} per turn of the event loop. */
export async function joinJsonPieces(pieces: readonly JsonPiece[]): Promise<unknown> {
  let root: unknown;
  let turnStarted = performance.now();
  for (const piece of pieces) {
    if (performance.now() - turnStarted > turnBudgetMs) {
      await betweenWriteSteps();
      turnStarted = performance.now();
    }
    const value = JSON.parse(piece.json) as unknown;
    if ('into' in piece) {
      const container = containerAt(root, piece.into);
      if (Array.isArray(container)) for (const item of value as unknown[]) container.push(item);
      else for (const key of Object.keys(value as object)) setMember(container, key, (value as Record<string, unknown>)[key]);
    } else if (piece.at.length === 0) root = value;
    else setMember(containerAt(root, piece.at.slice(0, -1)), piece.at[piece.at.length - 1] as string | number, value);
  }
  return root;
}
