/**
 * YAML request bodies parsed in time linear in their size, with the outcome as plain data (so a
 * worker thread can send it back). Two steps make that linear:
 * - a body that is a JSON document (what kubectl and client-node send, even as YAML) is parsed by
 *   `JSON.parse`, many times faster than a YAML parser; a repeated key or a syntax error sends it
 *   down the YAML path, which words the error as the real server does;
 * - the YAML parser's own duplicate-key check compares every key with every other key of a
 *   mapping (40,000 keys: 9 s); it is turned off and the keys of each mapping are checked with one
 *   set instead, with the parser's notion of equal keys (scalars with the same value: `1` and
 *   `"1"` differ, collections and aliases are never equal). When a text has both a repeated key and
 *   another error, the one the parser meets first (by the point in the text where it checks each)
 *   is reported; in rare texts the parser's own order differs, and the other 400 is answered.
 */
import { LineCounter, isMap, isNode, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { nestingTooDeep, scanJsonText } from '../http/json-text.js';

/** Why a YAML text did not parse. */
export type YamlProblem =
  /** `key` is the repeated key as Go's `%#v` prints it (`"a"`, `1`, `true`, `<nil>`), as kube-apiserver's message has it. */
  | { readonly kind: 'duplicate-key'; readonly key: string; readonly line: number }
  | { readonly kind: 'too-deep' }
  | { readonly kind: 'syntax'; readonly message: string };

/** The outcome of parsing one YAML text. */
export type YamlParsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: YamlProblem };

/** Parses one YAML (or JSON) document. Never throws. */
export function parseYamlText(text: string): YamlParsed {
  return parseAsJson(text) ?? parseAsYaml(text);
}

/**
 * The JSON fast path; undefined when the text is not a JSON object without repeated keys, or has
 * a carriage return without a line feed: JSON's whitespace, but not a line break to the YAML
 * parser, which gives such a text another meaning (every other JSON text means the same as YAML).
 */
export function parseAsJson(text: string): YamlParsed | undefined {
  if (!/^\s*\{/.test(text) || /\r(?!\n)/.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const scan = scanJsonText(text, true);
  if (scan.tooDeep) return { ok: false, problem: { kind: 'too-deep' } };
  if (scan.duplicateFields.length > 0) return undefined;
  return { ok: true, value };
}

// The YAML parser recurses: it gives up well before the nesting limit, with this message.
const stackOverflow = 'Maximum call stack size exceeded';

function parseAsYaml(text: string): YamlParsed {
  const lines = new LineCounter();
  let value: unknown;
  try {
    const doc = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
    const error = doc.errors[0];
    const duplicate = firstRepeatedKey(doc);
    if (error && (duplicate === undefined || error.pos[0] <= duplicate.checkedAt)) {
      return { ok: false, problem: error.message.includes(stackOverflow) ? { kind: 'too-deep' } : { kind: 'syntax', message: error.message } };
    }
    if (duplicate) {
      const { line } = lines.linePos(duplicate.offset);
      return { ok: false, problem: { kind: 'duplicate-key', key: goValueText(duplicate.value), line } };
    }
    value = doc.toJS();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (message.includes(stackOverflow)) return { ok: false, problem: { kind: 'too-deep' } };
    return { ok: false, problem: { kind: 'syntax', message } };
  }
  if (nestingTooDeep(value)) return { ok: false, problem: { kind: 'too-deep' } };
  return { ok: true, value };
}

/** A repeated key: its scalar value, where it starts, and where the parser would have checked it. */
interface RepeatedKey {
  readonly value: unknown;
  readonly offset: number;
  /**
   * The parser checks a block mapping's key before reading its value, a flow mapping's after: an
   * error before this offset in the text comes first.
   */
  readonly checkedAt: number;
}

/**
 * The repeated key the parser would have reported first: one set per mapping, so linear in the
 * keys. Walks with its own stack (the document can be as deep as the parser went).
 */
function firstRepeatedKey(doc: Document.Parsed): RepeatedKey | undefined {
  let first: RepeatedKey | undefined;
  const pending: unknown[] = [doc.contents];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        pending.push(pair.key, pair.value);
        if (!isScalar(pair.key)) continue;
        const value = pair.key.value;
        // The parser compares key values with `===`: NaN is never equal to itself (a Set says it is).
        if (typeof value === 'number' && Number.isNaN(value)) continue;
        if (!seen.has(value)) {
          seen.add(value);
          continue;
        }
        const offset = pair.key.range?.[0] ?? 0;
        const checkedAt = node.flow ? (((isNode(pair.value) ? pair.value : pair.key).range?.[1]) ?? offset) : offset;
        if (first === undefined || checkedAt < first.checkedAt) first = { value, offset, checkedAt };
      }
    } else if (isSeq(node)) {
      for (const item of node.items) pending.push(item);
    } else if (isPair(node)) {
      pending.push(node.key, node.value);
    }
    // Scalars end the walk, and so do aliases: their targets are walked where they are defined.
  }
  return first;
}

/** A key as Go's `%#v` prints the decoded value in yaml.v2's `key ... already set in map`. */
function goValueText(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  // YAML 1.1 timestamps and binary: dates and bytes.
  return JSON.stringify(value);
}
