import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mean, median, percentile, ratio, rotatedOrder, scaleSpread, spread } from './stats.js';

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

describe('spread', () => {
  test('gives the minimum, the median and the maximum of the repetitions', () => {
    assert.deepEqual(spread([1.4, 1.2, 1.9, 1.3]), { min: 1.2, median: 1.35, max: 1.9 });
  });
  test('of one repetition is that value three times, of none NaN three times', () => {
    assert.deepEqual(spread([7]), { min: 7, median: 7, max: 7 });
    const none = spread([]);
    assert.ok(Number.isNaN(none.min) && Number.isNaN(none.median) && Number.isNaN(none.max));
  });
  test('changes unit by scaling all three figures', () => {
    assert.deepEqual(scaleSpread({ min: 1, median: 2, max: 4 }, 10), { min: 10, median: 20, max: 40 });
  });
});

describe('rotatedOrder', () => {
  test('rotates by one place per round: A B C, B C A, C A B, then A B C again', () => {
    const abc = ['A', 'B', 'C'];
    assert.deepEqual([0, 1, 2, 3].map((round) => rotatedOrder(abc, round).join(' ')), ['A B C', 'B C A', 'C A B', 'A B C']);
  });
  test('puts every participant once in every position over as many rounds as participants', () => {
    const four = ['a', 'b', 'c', 'd'];
    for (let position = 0; position < four.length; position++) {
      const seen = [0, 1, 2, 3].map((round) => rotatedOrder(four, round)[position]);
      assert.deepEqual([...seen].sort(), four);
    }
  });
  test('leaves its input alone and rejects a negative or fractional round', () => {
    const input = ['x', 'y'];
    assert.deepEqual(rotatedOrder(input, 1), ['y', 'x']);
    assert.deepEqual(input, ['x', 'y']);
    assert.deepEqual(rotatedOrder([], 3), []);
    assert.throws(() => rotatedOrder(input, -1), RangeError);
    assert.throws(() => rotatedOrder(input, 0.5), RangeError);
  });
});
