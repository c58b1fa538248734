import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mean, median, percentile, ratio } from './stats.js';

describe('median', () => {
  test('takes the middle value of an odd count, whatever the input order', () => {
    assert.equal(median([5, 1, 3]), 3);
  });
  test('averages the two middle values of an even count', () => {
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });
  test('is NaN for no samples and leaves its input unsorted', () => {
    assert.ok(Number.isNaN(median([])));
    const input = [3, 1, 2];
    median(input);
    assert.deepEqual(input, [3, 1, 2]);
  });
});

describe('percentile', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
  test('uses the nearest rank: p99 of 1..100 is 99 and p100 is the maximum', () => {
    assert.equal(percentile(hundred, 99), 99);
    assert.equal(percentile(hundred, 100), 100);
    assert.equal(percentile(hundred, 50), 50);
  });
  test('returns the minimum for p0 and the only value of a single sample', () => {
    assert.equal(percentile(hundred, 0), 1);
    assert.equal(percentile([7], 99), 7);
  });
  test('rejects a percentile outside 0..100', () => {
    assert.throws(() => percentile([1], 101), RangeError);
    assert.throws(() => percentile([1], Number.NaN), RangeError);
  });
});

describe('ratio and mean', () => {
  test('ratio is NaN when the baseline is missing, zero or not finite', () => {
    assert.equal(ratio(3, 2), 1.5);
    assert.ok(Number.isNaN(ratio(3, undefined)));
    assert.ok(Number.isNaN(ratio(3, 0)));
    assert.ok(Number.isNaN(ratio(Number.NaN, 2)));
  });
  test('mean averages and is NaN for no samples', () => {
    assert.equal(mean([1, 2, 3, 6]), 3);
    assert.ok(Number.isNaN(mean([])));
  });
});
