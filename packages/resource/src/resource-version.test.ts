import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compareResourceVersions, isComparableResourceVersion } from './resource-version.js';

describe('compareResourceVersions (KEP-5504)', () => {
  test('orders positive decimal integers by value, whatever their length, without parsing them', () => {
    assert.equal(compareResourceVersions('9', '10'), -1);
    assert.equal(compareResourceVersions('10', '9'), 1);
    assert.equal(compareResourceVersions('123', '123'), 0);
    assert.equal(compareResourceVersions('123', '124'), -1);
    const huge = '123456789012345678901234567890';
    assert.equal(compareResourceVersions(huge, `${huge.slice(0, -1)}1`), -1, 'beyond Number.MAX_SAFE_INTEGER');
  });

  test('anything else is not comparable: zero, leading zeros, signs, letters, empty, undefined', () => {
    for (const bad of ['0', '007', '-1', '+1', '1.5', 'abc', 'eyJ3eCI6IjEifQ', '', ' 1', undefined]) {
      assert.equal(isComparableResourceVersion(bad), false, String(bad));
      assert.equal(compareResourceVersions(bad, '5'), undefined, String(bad));
      assert.equal(compareResourceVersions('5', bad), undefined, String(bad));
    }
  });
});
