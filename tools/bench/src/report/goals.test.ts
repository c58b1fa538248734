import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { atLeast, atMost, judgeGoals, roundAgreement } from './goals.js';

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

  test('a figure in other units is printed by the given formatter', () => {
    assert.equal(atMost('g', 2.5, 1, (n) => `${n} us`).measured, '2.5 us');
  });

  test('every goal of the issue is listed even when no scenario ran', () => {
    const goals = judgeGoals([], { cores: 2, load: { start: 0.5, max: 1.5, end: 1 } });
    const scenarioGoals = goals.filter((g) => !g.goal.startsWith('5.'));
    assert.deepEqual([...new Set(goals.map((g) => g.goal.slice(0, 2)))], ['1.', '2.', '3.', '4.', '5.']);
    assert.ok(scenarioGoals.every((g) => g.met === undefined && /did not run/.test(g.margin)));
  });

  test('goal 5 judges the quick run and the load average of this run', () => {
    const [quick, load] = judgeGoals([], { cores: 2, load: { start: 1, max: 3, end: 2 }, quickRun: { durationSeconds: 95, startedAt: 't', loadAtStart: 1 } }).slice(-2);
    assert.equal(quick?.met, true);
    assert.equal(quick?.measured, '95 s');
    assert.equal(load?.met, false, 'a load average above the core count is a loaded machine');
  });
});

describe('roundAgreement', () => {
  test('says when the rounds disagree about which consumer had the lower p99', () => {
    assert.equal(roundAgreement({ min: 0.5, median: 0.7, max: 0.9 }, 7, 7), 'same-round ratios 0.50x to 0.90x, lower in 7 of 7 rounds');
    assert.match(roundAgreement({ min: 0.5, median: 0.9, max: 1.4 }, 4, 7), /lower in 4 of 7 rounds: the rounds disagree/);
  });
});
