/**
 * RFC 6902 JSON Patch, with RFC 6901 JSON Pointers. Written here rather than taken from a library
 * so that errors carry the status and the messages of the Kubernetes API server (which uses
 * evanphx/json-patch): a malformed patch is 400 BadRequest; a patch that does not apply (failed
 * `test`, missing path, index out of range) is 422 Invalid. The input document is never mutated;
 * the patch is applied atomically to a copy.
 */
import { badPatch, patchDoesNotApply, patchTooLarge } from './patch-error.js';
import { cloneJson, getOwn, hasOwn, isJsonObject, jsonEqual, setOwn } from '../json-value.js';
import { maxNestingDepth } from '../http/json-text.js';

/** The most operations one JSON patch may have (kube-apiserver's `maxJSONPatchOperations`). */
export const maxJsonPatchOperations = 10_000;
/**
 * The most bytes of JSON that the `copy` operations of one patch may add, all together
 * (kube-apiserver's `JSONPatchMaxCopyBytes`, 3 MiB by default): `copy` is the one operation that
 * grows a document beyond the request's own size (each can double it).
 */
export const maxJsonPatchCopyBytes = 3 * 1024 * 1024;
/**
 * The most array elements that the inserts and removes of one patch may shift, all together (ours:
 * kube-apiserver has no such limit). An insert or remove before the end of an array moves every
 * element after it, so 10,000 moves of the first element of a 450,000-element array shift 4.5
 * billion elements (seconds of CPU); ordinary patches shift a few thousand.
 */
export const maxJsonPatchArrayShifts = 10_000_000;
import type { JsonObject } from '../json-value.js';

/** One validated RFC 6902 operation. */
type Operation =
  | { op: 'add' | 'replace' | 'test'; path: string[]; rawPath: string; value: unknown }
  | { op: 'remove'; path: string[]; rawPath: string }
  | { op: 'move' | 'copy'; path: string[]; rawPath: string; from: string[]; rawFrom: string };

/** Parses an RFC 6901 pointer into reference tokens (`""` -> `[]`). Throws 400 on a malformed pointer. */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw badPatch(`invalid JSON pointer ${JSON.stringify(pointer)}: must be empty or start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~[^01]|~$/.test(token)) throw badPatch(`invalid JSON pointer ${JSON.stringify(pointer)}: bad escape in ${JSON.stringify(token)}`);
      return token.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

function decodeOperations(operations: unknown): Operation[] {
  if (!Array.isArray(operations)) {
    throw badPatch(`json: cannot unmarshal ${operations === null ? 'null' : Array.isArray(operations) ? 'array' : typeof operations} into Go value of type jsonpatch.Patch`);
  }
  return operations.map((raw: unknown, i): Operation => {
    if (!isJsonObject(raw)) throw badPatch(`json patch operation ${i} is not an object`);
    const op = getOwn(raw, 'op');
    const rawPath = getOwn(raw, 'path');
    if (typeof op !== 'string') throw badPatch(`json patch operation ${i}: missing "op"`);
    if (typeof rawPath !== 'string') throw badPatch(`json patch operation ${i} (${op}): missing "path"`);
    const path = parseJsonPointer(rawPath);
    switch (op) {
      case 'add':
      case 'replace':
      case 'test':
        if (!hasOwn(raw, 'value')) throw badPatch(`json patch operation ${i} (${op}): missing "value"`);
        return { op, path, rawPath, value: raw['value'] };
      case 'remove':
        return { op, path, rawPath };
      case 'move':
      case 'copy': {
        const rawFrom = getOwn(raw, 'from');
        if (typeof rawFrom !== 'string') throw badPatch(`json patch operation ${i} (${op}): missing "from"`);
        return { op, path, rawPath, from: parseJsonPointer(rawFrom), rawFrom };
      }
      default:
        throw badPatch(`Unexpected kind: ${op}`);
    }
  });
}

/** Array index token: `0` or no leading zero; `-` (append) only where `allowEnd`. */
function arrayIndex(token: string, length: number, allowEnd: boolean): number {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw patchDoesNotApply(`Unable to access invalid index: ${token}: invalid index referenced`);
  const index = Number(token);
  if (index > length || (!allowEnd && index === length)) {
    throw patchDoesNotApply(`Unable to access invalid index: ${index}: invalid index referenced`);
  }
  return index;
}

/** The value at `path`, or `undefined` when absent. */
function valueAt(doc: unknown, path: readonly string[]): unknown {
  let node = doc;
  for (const token of path) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isJsonObject(node)) {
      node = getOwn(node, token);
    } else {
      return undefined;
    }
  }
  return node;
}

class Applier {
  /** Bytes of JSON the `copy` operations added so far. */
  private copiedBytes = 0;

  /** Array elements shifted by inserts and removes so far. */
  private shiftedElements = 0;
  /** Whether a `move` ran: moves are not depth-checked one by one (see {@link applyJsonPatch}). */
  moved = false;

  constructor(public doc: unknown) {}

  /**
   * Refuses to insert `value` at `path` when the document would then be nested deeper than
   * {@link maxNestingDepth} (the result of a patch is stored, served and patched again: deeper
   * would overflow the stack somewhere later). Walks `value`, so it is only used for values whose
   * walks the request bounds: the patch's own values, and copies (within the copy budget).
   */
  refuseTooDeep(path: readonly string[], value: unknown, what: string): void {
    if (path.length + depthOf(value, maxNestingDepth + 1 - path.length) > maxNestingDepth) {
      throw patchDoesNotApply(`${what} operation does not apply: the result would be nested deeper than ${maxNestingDepth} levels at ${formatPath(path)}`);
    }
  }

  add(path: readonly string[], value: unknown, what: string): void {
    if (path.length === 0) {
      this.doc = value;
      return;
    }
    const parent = valueAt(this.doc, path.slice(0, -1));
    const last = path[path.length - 1]!;
    if (Array.isArray(parent)) {
      const index = arrayIndex(last, parent.length, true);
      this.countShifted(parent.length - index);
      parent.splice(index, 0, value);
    } else if (isJsonObject(parent)) setOwn(parent, last, value);
    else throw patchDoesNotApply(`${what} operation does not apply: doc is missing path: "${formatPath(path)}": missing value`);
  }

  remove(path: readonly string[], what: string): unknown {
    if (path.length === 0) throw patchDoesNotApply(`${what} operation does not apply: cannot remove the whole document`);
    const parent = valueAt(this.doc, path.slice(0, -1));
    const last = path[path.length - 1]!;
    if (Array.isArray(parent)) {
      const index = arrayIndex(last, parent.length, false);
      this.countShifted(parent.length - index - 1);
      return parent.splice(index, 1)[0];
    }
    if (isJsonObject(parent) && hasOwn(parent, last)) {
      const old = parent[last];
      delete parent[last];
      return old;
    }
    throw patchDoesNotApply(
      what === 'remove'
        ? `unable to remove nonexistent key: ${last}: missing value`
        : `${what} operation does not apply: doc is missing key: ${formatPath(path)}: missing value`,
    );
  }

  /** Counts `elements` an insert or remove shifts within its array, against {@link maxJsonPatchArrayShifts}. */
  private countShifted(elements: number): void {
    this.shiftedElements += elements;
    if (this.shiftedElements > maxJsonPatchArrayShifts) {
      throw patchDoesNotApply(`Unable to apply, the array elements shifted by inserts and removes exceed ${maxJsonPatchArrayShifts}`);
    }
  }

  apply(op: Operation): void {
    switch (op.op) {
      case 'add':
        this.refuseTooDeep(op.path, op.value, 'add');
        this.add(op.path, cloneJson(op.value), 'add');
        return;
      case 'remove':
        this.remove(op.path, 'remove');
        return;
      case 'replace':
        if (op.path.length === 0) {
          this.doc = cloneJson(op.value);
          return;
        }
        this.refuseTooDeep(op.path, op.value, 'replace');
        this.remove(op.path, 'replace');
        this.add(op.path, cloneJson(op.value), 'replace');
        return;
      case 'test': {
        const actual = valueAt(this.doc, op.path);
        if (actual === undefined || !jsonEqual(actual, op.value)) throw patchDoesNotApply(`testing value ${op.rawPath} failed: test failed`);
        return;
      }
      case 'move': {
        if (op.rawFrom === op.rawPath) {
          if (valueAt(this.doc, op.from) === undefined) throw missingFrom('move', op.rawFrom);
          return;
        }
        if (op.rawPath.startsWith(`${op.rawFrom}/`)) {
          throw patchDoesNotApply(`move operation does not apply: cannot move ${op.rawFrom} into its own child ${op.rawPath}`);
        }
        if (valueAt(this.doc, op.from) === undefined) throw missingFrom('move', op.rawFrom);
        // The value itself moves, unwalked: a walk (or a cached depth that any add inside the
        // value forgets) per move made 10,000 moves of a 1 MB map cost minutes. The depth of the
        // result is checked once, at the end.
        const value = this.remove(op.from, 'move');
        this.add(op.path, value, 'move');
        this.moved = true;
        return;
      }
      case 'copy': {
        const value = valueAt(this.doc, op.from);
        if (value === undefined) throw missingFrom('copy', op.rawFrom);
        // Measured before cloning: a copy past the limit costs nothing more than its measurement.
        this.copiedBytes += jsonBytesUpTo(value, maxJsonPatchCopyBytes - this.copiedBytes + 1);
        if (this.copiedBytes > maxJsonPatchCopyBytes) {
          throw patchDoesNotApply(`Unable to copy, the accumulated size increase of copy operations exceeds ${maxJsonPatchCopyBytes}`);
        }
        // Before cloning, which recurses: after moves, the value may be nested past the limit.
        this.refuseTooDeep(op.path, value, 'copy');
        this.add(op.path, cloneJson(value), 'copy');
        return;
      }
    }
  }
}

/** Nesting depth of `value` (0 for a scalar), counted no further than `limit` (the answer is then `limit`). Iterative. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const v = next.value;
    if (typeof v !== 'object' || v === null) continue;
    const depth = next.depth + 1;
    if (depth >= limit) return limit;
    if (depth > deepest) deepest = depth;
    if (Array.isArray(v)) {
      for (const child of v) if (typeof child === 'object' && child !== null) pending.push({ value: child, depth });
      continue;
    }
    // for-in, not Object.values: no array of every value of a large map.
    for (const key in v) {
      const child = getOwn(v as JsonObject, key);
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth });
    }
  }
  return deepest;
}

/** The length of `value` as JSON text, counted no further than `limit` (the answer is then at least `limit`). Iterative. */
function jsonBytesUpTo(value: unknown, limit: number): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && bytes < limit) {
    const v = pending.pop();
    if (Array.isArray(v)) {
      bytes += 2 + Math.max(0, v.length - 1);
      for (const child of v) pending.push(child);
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      bytes += 2 + Math.max(0, entries.length - 1);
      for (const [key, child] of entries) {
        bytes += key.length + 3;
        pending.push(child);
      }
    } else {
      bytes += typeof v === 'string' ? v.length + 2 : String(v).length;
    }
  }
  return bytes;
}

function missingFrom(what: string, from: string) {
  return patchDoesNotApply(`${what} operation does not apply: doc is missing from path: ${from}: missing value`);
}

function formatPath(path: readonly string[]): string {
  return `/${path.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/**
 * Applies an RFC 6902 JSON Patch to a copy of `doc` and returns the copy; `doc` is not mutated.
 *
 * @throws {@link PatchError} 400 when `operations` is not a well-formed patch, 422 when an
 *   operation does not apply (e.g. `testing value /metadata/finalizers/0 failed: test failed`) or
 *   the result is not a JSON object.
 */
export function applyJsonPatch(doc: Record<string, unknown>, operations: unknown): Record<string, unknown> {
  if (Array.isArray(operations) && operations.length > maxJsonPatchOperations) {
    throw patchTooLarge(`The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${operations.length}`);
  }
  const ops = decodeOperations(operations);
  const applier = new Applier(cloneJson(doc));
  for (const op of ops) applier.apply(op);
  // Adds, replaces and copies were checked one by one, moves only here, once. Nothing in between
  // recursed into a moved value: copies check depth before cloning, and a `test` recurses only
  // as deep as the patch's own value.
  if (applier.moved && depthOf(applier.doc, maxNestingDepth + 1) > maxNestingDepth) {
    throw patchDoesNotApply(`move operation does not apply: the result would be nested deeper than ${maxNestingDepth} levels`);
  }
  if (!isJsonObject(applier.doc)) throw patchDoesNotApply('the patched document is not a JSON object');
  return applier.doc satisfies JsonObject;
}
