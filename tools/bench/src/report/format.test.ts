import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatFixed, formatLoad, formatSpread } from './format.js';

describe('formatSpread', () => {
  const two = (n: number): string => formatFixed(n, 2);
  test('prints the median, then the minimum and the maximum of the repetitions', () => {
    assert.equal(formatSpread({ min: 1.2, median: 1.35, max: 1.9 }, two), '1.35 [1.20, 1.90]');
  });
  test('prints the median alone when every repetition reads the same', () => {
    assert.equal(formatSpread({ min: 1.401, median: 1.402, max: 1.404 }, two), '1.40');
  });
  test('prints n/a alone when nothing was measured', () => {
    assert.equal(formatSpread({ min: Number.NaN, median: Number.NaN, max: Number.NaN }, two), 'n/a');
  });
});

describe('formatLoad', () => {
  test('gives start, end and highest load average, and flags a load above the core count', () => {
    assert.equal(formatLoad({ start: 0.5, max: 1.5, end: 1.25 }, 2), 'load average 0.50 -> 1.25 (max 1.50) on 2 cores');
    assert.match(formatLoad({ start: 3, max: 7.5, end: 6 }, 2), /max 7\.50\) on 2 cores: a loaded machine/);
  });
});
