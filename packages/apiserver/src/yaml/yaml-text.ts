/**
 * YAML request bodies parsed in time linear in their size, with the outcome as plain data (so a
 * worker thread can send it back). Two steps make that linear:
 * - a body that is a JSON document (what kubectl and client-node send, even as YAML) is parsed by
 *   `JSON.parse`, many times faster than a YAML parser; a repeated key or a syntax error sends it
 *   down the YAML path, which words the error as the real server does;
 * - the YAML parser's own duplicate-key check compares every key with every other key of a
 *   mapping (40,000 keys: 9 s); it is turned off and the keys of each mapping are checked with one
 *   set instead.
 */
import { LineCounter, isMap, isScalar, parseDocument, visit } from 'yaml';
import { maxNestingDepth, nestingTooDeep, scanJsonText } from '../http/json-text.js';

/** Why a YAML text did not parse. */
export type YamlProblem =
  | { readonly kind: 'duplicate-key'; readonly key: string; readonly line: number; readonly column: number }
  | { readonly kind: 'too-deep' }
  | { readonly kind: 'syntax'; readonly message: string };

/** The outcome of parsing one YAML text. */
export type YamlParsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: YamlProblem };

/** Parses one YAML (or JSON) document. Never throws. */
export function parseYamlText(text: string): YamlParsed {
  return parseAsJson(text) ?? parseAsYaml(text);
}

/** The JSON fast path; undefined when the text is not a JSON object without repeated keys. */
export function parseAsJson(text: string): YamlParsed | undefined {
  if (!/^\s*\{/.test(text)) return undefined;
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
    if (error) return { ok: false, problem: error.message.includes(stackOverflow) ? { kind: 'too-deep' } : { kind: 'syntax', message: error.message } };
    const duplicate = firstDuplicateKey(doc, lines);
    if (duplicate) return { ok: false, problem: duplicate };
    value = doc.toJS();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (message.includes(stackOverflow)) return { ok: false, problem: { kind: 'too-deep' } };
    return { ok: false, problem: { kind: 'syntax', message } };
  }
  if (nestingTooDeep(value)) return { ok: false, problem: { kind: 'too-deep' } };
  return { ok: true, value };
}

/** The first key repeated in one mapping, in document order: one set per mapping, linear in the keys. */
function firstDuplicateKey(doc: ReturnType<typeof parseDocument>, lines: LineCounter): YamlProblem | undefined {
  let found: YamlProblem | undefined;
  visit(doc, {
    Map(_key, map) {
      if (!isMap(map)) return undefined;
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = pair.key;
        const text = isScalar(key) ? String(key.value) : JSON.stringify(key);
        if (seen.has(text)) {
          const offset = isScalar(key) ? (key.range?.[0] ?? 0) : 0;
          const { line, col } = lines.linePos(offset);
          found = { kind: 'duplicate-key', key: text, line, column: col };
          return visit.BREAK;
        }
        seen.add(text);
      }
      return undefined;
    },
  });
  return found;
}

export { maxNestingDepth };
