import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isValidLabelKey, isValidLabelValue, labelValueProblem, qualifiedNameProblem } from './label-validation.js';

describe('label keys', () => {
  const cases: [key: string, valid: boolean][] = [
    ['app', true],
    ['app.kubernetes.io/name', true],
    ['a', true],
    ['A_b-c.D', true],
    ['k'.repeat(63), true],
    [`${'p'.repeat(253)}/n`, true],
    ['', false],
    ['k'.repeat(64), false],
    [`${'p'.repeat(254)}/n`, false],
    ['-app', false],
    ['app-', false],
    ['a b', false],
    ['/app', false],
    ['example.com/', false],
    ['Example.com/app', false],
    ['a/b/c', false],
    ['exa_mple.com/app', false],
  ];
  for (const [key, valid] of cases) {
    test(`${JSON.stringify(key.length > 40 ? `${key.slice(0, 20)}...(${key.length})` : key)} is ${valid ? 'a valid' : 'an invalid'} key`, () => {
      assert.equal(isValidLabelKey(key), valid);
      assert.equal(qualifiedNameProblem(key) === undefined, valid);
    });
  }
});

describe('label values', () => {
  const cases: [value: string, valid: boolean][] = [
    ['', true],
    ['web', true],
    ['v1.2_3-x', true],
    ['v'.repeat(63), true],
    ['v'.repeat(64), false],
    ['-x', false],
    ['x.', false],
    ['a/b', false],
    ['é', false],
  ];
  for (const [value, valid] of cases) {
    test(`${JSON.stringify(value.length > 40 ? `(${value.length} chars)` : value)} is ${valid ? 'a valid' : 'an invalid'} value`, () => {
      assert.equal(isValidLabelValue(value), valid);
      assert.equal(labelValueProblem(value) === undefined, valid);
    });
  }
});
