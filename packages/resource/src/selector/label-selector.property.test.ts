/**
 * Properties of the label selector parser, on random selectors (fast-check): the canonical text
 * round-trips, matching agrees with a direct reading of the requirements, whitespace and order do
 * not matter, and any input either parses or fails with a SelectorError.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isSelectorError } from '../errors.js';
import { LabelSelector } from './label-selector.js';

const alnum = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'.split(''));
const middle = fc.constantFrom(...'abcz09-_.'.split(''));
/** A label name: alphanumeric at both ends, `-_.` inside, at most 63 characters. */
const name = fc
  .tuple(alnum, fc.array(middle, { maxLength: 8 }), alnum)
  .map(([a, m, b]) => `${a}${m.join('')}${b}`)
  .filter((n) => n.length <= 63);
/** A key: a name, optionally under a DNS-subdomain prefix. */
const key = fc.oneof(name, fc.tuple(fc.constantFrom('example.com', 'app.kubernetes.io', 'k8s.io'), name).map(([p, n]) => `${p}/${n}`));
/** A value: empty or a name. */
const value = fc.oneof(fc.constant(''), name);
/** A small vocabulary, so that random selectors and random labels meet. */
const smallKey = fc.constantFrom('app', 'tier', 'example.com/team', 'x');
const smallValue = fc.constantFrom('', 'web', 'db', 'a-1', 'z');

type Req =
  | { op: '=' | '==' | '!='; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'exists' | '!'; key: string };

function requirement(k: fc.Arbitrary<string>, v: fc.Arbitrary<string>): fc.Arbitrary<Req> {
  return fc.oneof(
    fc.record({ op: fc.constantFrom('=' as const, '==' as const, '!=' as const), key: k, value: v }),
    fc.record({ op: fc.constantFrom('in' as const, 'notin' as const), key: k, values: fc.array(v, { minLength: 1, maxLength: 4 }) }),
    fc.record({ op: fc.constantFrom('exists' as const, '!' as const), key: k }),
  );
}

const space = fc.constantFrom('', ' ', '  ', '\t');

/** Writes a requirement as a user might, with random spacing. */
function write(r: Req, s: () => string): string {
  switch (r.op) {
    case '=':
    case '==':
    case '!=':
      return `${s()}${r.key}${s()}${r.op}${s()}${r.value}${s()}`;
    case 'in':
    case 'notin':
      return `${s()}${r.key} ${s()}${r.op}${s()}(${r.values.map((v) => `${s()}${v}${s()}`).join(',')})${s()}`;
    case 'exists':
      return `${s()}${r.key}${s()}`;
    case '!':
      return `${s()}!${s()}${r.key}${s()}`;
  }
}

/** What a requirement means, read directly from its definition in Kubernetes. */
function holds(r: Req, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const v = labels[r.key];
  switch (r.op) {
    case '=':
    case '==':
      return has && v === r.value;
    case '!=':
      return !has || v !== r.value;
    case 'in':
      return has && r.values.includes(v!);
    case 'notin':
      return !has || !r.values.includes(v!);
    case 'exists':
      return has;
    case '!':
      return !has;
  }
}

const spaced = (reqs: Req[], spaces: string[]): string => {
  let i = 0;
  const s = (): string => spaces[i++ % spaces.length] ?? '';
  return reqs.map((r) => write(r, s)).join(',');
};

describe('LabelSelector properties', () => {
  test('the canonical text round-trips and is a fixed point, however the selector was written', () => {
    fc.assert(
      fc.property(fc.array(requirement(key, value), { maxLength: 6 }), fc.array(space, { minLength: 1, maxLength: 8 }), (reqs, spaces) => {
        const parsed = LabelSelector.parse(spaced(reqs, spaces));
        const canonical = parsed.toString();
        const again = LabelSelector.parse(canonical);
        assert.deepEqual(again.requirements, parsed.requirements);
        assert.equal(again.toString(), canonical);
        assert.equal(parsed.requirements.length, reqs.length);
      }),
      { numRuns: 300 },
    );
  });

  test('matches exactly the label sets every requirement holds for', () => {
    fc.assert(
      fc.property(
        fc.array(requirement(smallKey, smallValue), { maxLength: 4 }),
        fc.dictionary(smallKey, smallValue, { maxKeys: 4 }),
        fc.array(space, { minLength: 1, maxLength: 4 }),
        (reqs, labels, spaces) => {
          const selector = LabelSelector.parse(spaced(reqs, spaces));
          assert.equal(selector.matches(labels), reqs.every((r) => holds(r, labels)), `${spaced(reqs, spaces)} on ${JSON.stringify(labels)}`);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('the order of the requirements changes neither the canonical text nor what matches', () => {
    fc.assert(
      fc.property(fc.array(requirement(smallKey, smallValue), { minLength: 1, maxLength: 5 }), fc.dictionary(smallKey, smallValue, { maxKeys: 4 }), (reqs, labels) => {
        const forward = LabelSelector.parse(spaced(reqs, ['']));
        const backward = LabelSelector.parse(spaced([...reqs].reverse(), ['']));
        assert.equal(forward.matches(labels), backward.matches(labels));
        // Requirements on different keys sort by key; on one key they keep their written order.
        const distinctKeys = new Set(reqs.map((r) => r.key)).size === reqs.length;
        if (distinctKeys) assert.equal(forward.toString(), backward.toString());
      }),
      { numRuns: 300 },
    );
  });

  test('a selector made from labels matches exactly the label sets that contain them', () => {
    fc.assert(
      fc.property(fc.dictionary(smallKey, smallValue, { maxKeys: 3 }), fc.dictionary(smallKey, smallValue, { maxKeys: 4 }), (wanted, labels) => {
        const selector = LabelSelector.fromLabels(wanted);
        assert.equal(selector.matches({ ...labels, ...wanted }), true);
        assert.equal(selector.matches(labels), Object.entries(wanted).every(([k, v]) => labels[k] === v));
        assert.deepEqual(LabelSelector.parse(selector.toString()).requirements, selector.requirements);
      }),
    );
  });

  test('any text either parses or fails with a SelectorError', () => {
    const noisy = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(fc.constantFrom('a', 'b', '=', '==', '!=', '!', ',', '(', ')', ' in ', ' notin ', ' ', 'x/y', '-', '.', '\u00e9'), { maxLength: 20 }).map((t) => t.join('')),
    );
    fc.assert(
      fc.property(noisy, (text) => {
        try {
          const selector = LabelSelector.parse(text);
          assert.deepEqual(LabelSelector.parse(selector.toString()).requirements, selector.requirements, 'what parses round-trips');
        } catch (error) {
          assert.ok(isSelectorError(error), `${JSON.stringify(text)} threw ${String(error)}`);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
