/**
 * Properties of the field selector parser, on random selectors (fast-check): escaped values of any
 * characters round-trip through the canonical text, matching agrees with a direct reading of the
 * terms (a missing field reads as ''), and any input either parses or fails with a SelectorError.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isSelectorError } from '../errors.js';
import { FieldSelector, escapeFieldValue } from './field-selector.js';

interface Term {
  field: string;
  operator: '=' | '==' | '!=';
  value: string;
}

const field = fc.constantFrom('metadata.name', 'metadata.namespace', 'spec.nodeName', 'status.phase');
const operator = fc.constantFrom('=' as const, '==' as const, '!=' as const);
/**
 * Any characters, the special ones (`\ , = !`) often: the parser trims the spaces around a value, so
 * a value that starts or ends with whitespace is not generated (it does not survive in Kubernetes either).
 */
const value = fc
  .array(fc.oneof(fc.constantFrom('\\', ',', '=', '!', ' ', 'a', 'é', '日'), fc.string({ maxLength: 2 })), { maxLength: 8 })
  .map((parts) => parts.join(''))
  .filter((v) => v.trim() === v);
const term: fc.Arbitrary<Term> = fc.record({ field, operator, value });
const smallValue = fc.constantFrom('', 'a', 'b,c', 'x=y', 'back\\slash');

function text(terms: readonly Term[]): string {
  return terms.map((t) => `${t.field}${t.operator}${escapeFieldValue(t.value)}`).join(',');
}

function read(object: Record<string, Record<string, string>>, path: string): string {
  const [a, b] = path.split('.') as [string, string];
  return object[a]?.[b] ?? '';
}

describe('FieldSelector properties', () => {
  test('escaped values of any characters round-trip through the canonical text', () => {
    fc.assert(
      fc.property(fc.array(term, { maxLength: 5 }), (terms) => {
        const parsed = FieldSelector.parse(text(terms), { allowedFields: 'any' });
        assert.deepEqual(
          [...parsed.requirements].map((r) => [r.field, r.operator, r.value]).sort(),
          terms.map((t) => [t.field, t.operator, t.value]).sort(),
        );
        const again = FieldSelector.parse(parsed.toString(), { allowedFields: 'any' });
        assert.deepEqual(again.requirements, parsed.requirements);
        assert.equal(again.toString(), parsed.toString());
      }),
      { numRuns: 500 },
    );
  });

  test('matches exactly the objects every term holds for; a missing field reads as the empty string', () => {
    const object = fc.record({
      metadata: fc.record({ name: smallValue, namespace: smallValue }, { requiredKeys: [] }),
      spec: fc.record({ nodeName: smallValue }, { requiredKeys: [] }),
      status: fc.record({ phase: smallValue }, { requiredKeys: [] }),
    });
    fc.assert(
      fc.property(fc.array(fc.record({ field, operator, value: smallValue }), { maxLength: 4 }), object, (terms, o) => {
        const selector = FieldSelector.parse(text(terms), { allowedFields: 'any' });
        const expected = terms.every((t) => (t.operator === '!=' ? read(o, t.field) !== t.value : read(o, t.field) === t.value));
        assert.equal(selector.matches((f) => read(o, f)), expected, `${text(terms)} on ${JSON.stringify(o)}`);
      }),
      { numRuns: 500 },
    );
  });

  test('only the allowed fields are accepted', () => {
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 4 }), (terms) => {
        const allowed = ['metadata.name', 'metadata.namespace'];
        const ok = terms.every((t) => allowed.includes(t.field));
        try {
          FieldSelector.parse(text(terms));
          assert.ok(ok, `${text(terms)} was accepted`);
        } catch (error) {
          assert.ok(!ok && isSelectorError(error), `${text(terms)} threw ${String(error)}`);
        }
      }),
    );
  });

  test('any text either parses or fails with a SelectorError', () => {
    const noisy = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(fc.constantFrom('metadata.name', 'a', '=', '==', '!=', '!', ',', '\\', ' ', '\\,', '\\='), { maxLength: 16 }).map((t) => t.join('')),
    );
    fc.assert(
      fc.property(noisy, (input) => {
        try {
          const selector = FieldSelector.parse(input, { allowedFields: 'any' });
          assert.deepEqual(FieldSelector.parse(selector.toString(), { allowedFields: 'any' }).requirements, selector.requirements, 'what parses round-trips');
        } catch (error) {
          assert.ok(isSelectorError(error), `${JSON.stringify(input)} threw ${String(error)}`);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
