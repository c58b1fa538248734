import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { atLeast, atMost, judgeGoals } from './goals.js';

describe('goal verdicts', () => {
  test('a higher-is-better goal says by how much it is met or missed', () => {
    assert.deepEqual(atLeast('g', 1.1, 1.0), { goal: 'g', measured: '1.10x', met: true, margin: 'by 10%' });
    assert.deepEqual(atLeast('g', 0.93, 1.25), { goal: 'g', measured: '0.93x', met: false, margin: 'short by 26%' });
  });

  test('a lower-is-better goal says by how much it is under or over', () => {
    assert.deepEqual(atMost('g', 0.45, 0.6), { goal: 'g', measured: '0.45x', met: true, margin: 'by 25%' });
    assert.deepEqual(atMost('g', 1.17, 1.0), { goal: 'g', measured: '1.17x', met: false, margin: 'over by 17%' });
  });

  test('a missing figure is neither met nor missed', () => {
    assert.equal(atLeast('g', Number.NaN, 1).met, undefined);
  });

  test('every goal of the issue is listed even when no scenario ran', () => {
    const goals = judgeGoals([]);
    assert.equal(goals.length, 7);
    assert.ok(goals.every((g) => g.met === undefined && /did not run/.test(g.margin)));
  });
});
