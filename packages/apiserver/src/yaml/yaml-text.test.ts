/**
 * `parseYamlText` against the `yaml` package's own parse (its quadratic duplicate-key check on):
 * the same value, the same repeated key at the same place, the same first error, for YAML and for
 * JSON texts (which take the JSON fast path).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { YAMLParseError, parse, parseDocument } from 'yaml';
import { parseYamlText } from './yaml-text.js';
import type { YamlParsed } from './yaml-text.js';

/** What the `yaml` package answers, as a `YamlParsed` (the repeated key's text aside: it does not say). */
function packageOutcome(text: string): YamlParsed {
  try {
    return { ok: true, value: parse(text, { logLevel: 'error' }) as unknown };
  } catch (err) {
    if (!(err instanceof YAMLParseError)) throw err;
    const at = err.linePos?.[0];
    if (err.code === 'DUPLICATE_KEY' && at) return { ok: false, problem: { kind: 'duplicate-key', key: '?', line: at.line } };
    return { ok: false, problem: { kind: 'syntax', message: err.message } };
  }
}

/** Ours, with the repeated key's text set aside as in {@link packageOutcome}. */
function ourOutcome(text: string): YamlParsed {
  const parsed = parseYamlText(text);
  if (!parsed.ok && parsed.problem.kind === 'duplicate-key') return { ok: false, problem: { ...parsed.problem, key: '?' } };
  return parsed;
}

describe('parseYamlText agrees with the yaml package', () => {
  const texts: [string, string][] = [
    ['a block mapping', 'a: 1\nb:\n  c: [x, y]\n'],
    ['a key repeated in a nested mapping', 'spec:\n  replicas: 1\n  color: red\n  replicas: 2\n'],
    ['a key repeated in a flow mapping', 'a: {x: 1, y: 2, x: 3}\n'],
    ['a repeated key inside a list item', 'items:\n- name: a\n  name: b\n'],
    ['the integer 1 and the string "1": different keys', '1: a\n"1": b\n'],
    ['null and ~: the same key', 'null: a\n~: b\n'],
    ['null and the string "null": different keys', 'null: a\n"null": b\n'],
    ['true and True: the same key', 'true: a\nTrue: b\n'],
    ['0x10 and 16: the same key', '0x10: a\n16: b\n'],
    ['collections as keys are never equal', '? [a]\n: 1\n? [a]\n: 2\n'],
    ['.nan keys are never equal', '.nan: a\n.nan: b\n'],
    ['an alias as a key', 'a: &k x\n*k : 2\nx: 3\n'],
    ['two repeated keys: the first in the text is reported', 'outer:\n  a: 1\n  a: 2\nb: 1\nb: 2\n'],
    ['a repeated key deeper but earlier in the text', 'x:\n  y: 1\n  y: 2\nx2: 1\nx: 3\n'],
    ['a syntax error before a repeated key', 'a: [1, 2\nb: 1\nb: 2\n'],
    ['a repeated key before a syntax error', 'b: 1\nb: 2\nc: [1, 2\n'],
    ['two documents', 'a: 1\n---\nb: 2\n'],
    ['a repeated key in the second of two documents', 'a: 1\n---\nb: 2\nb: 3\n'],
    ['an empty text', ''],
    ['__proto__ as a key', '__proto__:\n  polluted: yes\n'],
    ['a JSON object', '{"a": {"b": [1, 2.5, null, true, "x"]}, "c": "\\u00e9"}'],
    ['a JSON object with a repeated key', '{\n  "a": 1,\n  "b": {"c": 1, "c": 2}\n}\n'],
    ['JSON with a lone carriage return (YAML reads it differently)', '{\r"a": 1}'],
    ['JSON followed by another document', '{"a": 1}\n---\n{"b": 2}\n'],
  ];
  for (const [name, text] of texts) {
    test(name, () => {
      assert.deepEqual(ourOutcome(text), packageOutcome(text));
    });
  }

  test('the repeated key is named as Go prints it', () => {
    const keyOf = (text: string): string | undefined => {
      const parsed = parseYamlText(text);
      return !parsed.ok && parsed.problem.kind === 'duplicate-key' ? parsed.problem.key : undefined;
    };
    assert.equal(keyOf('a: 1\na: 2\n'), '"a"');
    assert.equal(keyOf('"a b": 1\n"a b": 2\n'), '"a b"');
    assert.equal(keyOf('1: a\n1: b\n'), '1');
    assert.equal(keyOf('true: a\ntrue: b\n'), 'true');
    assert.equal(keyOf('~: a\nnull: b\n'), '<nil>');
    assert.equal(keyOf('{"a": 1, "a": 2}'), '"a"');
  });

  // JSON texts with any whitespace JSON allows (a lone carriage return included), keys that mean
  // something else in YAML, repeated keys, every number and string JSON can write.
  test('any JSON object text: the same outcome as the yaml package', () => {
    const space = fc.constantFrom('', ' ', '\n', '\t', '\r\n', '\r', '  \n  ', '\n\t');
    const key = fc.constantFrom('a', 'b', '1', 'null', 'true', '__proto__', 'a b', '#x', '- x', 'x: y', '? q', '', '*a', '&a', '!t', '\u2028');
    const scalar = fc.oneof(
      fc.string({ unit: 'binary' }).map((s) => JSON.stringify(s)),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
      fc.integer().map(String),
      fc.constantFrom('true', 'false', 'null', '1e5', '-0', '0.5E-3', '1E400', '12345678901234567890'),
    );
    const { object } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, scalar, tie('object'), tie('array')),
      object: fc
        .array(fc.tuple(space, key, space, space, tie('value'), space), { maxLength: 4 })
        .map((entries) => `{${entries.map(([a, k, b, c, v, d]) => `${a}${JSON.stringify(k)}${b}:${c}${String(v)}${d}`).join(',')}}`),
      array: fc.array(fc.tuple(space, tie('value'), space), { maxLength: 4 }).map((items) => `[${items.map(([a, v, b]) => `${a}${String(v)}${b}`).join(',')}]`),
    }));
    fc.assert(
      fc.property(space, object, space, (before, body, after) => {
        const text = `${before}${String(body)}${after}`;
        const ours = ourOutcome(text);
        const theirs = packageOutcome(text);
        // A text with both a repeated key and another error (lone carriage returns make such
        // YAML) may be refused for the other one: both are 400s.
        const refusedForEither = !ours.ok && !theirs.ok && ours.problem.kind !== theirs.problem.kind && parseDocument(text, { uniqueKeys: false }).errors.length > 0;
        if (!refusedForEither) assert.deepEqual(ours, theirs);
      }),
      { numRuns: 2_000 },
    );
  });
});
