import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration, timestampAge } from './human-duration.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration', () => {
  test('keeps about two significant figures at every scale, as kubectl shows ages', () => {
    const cases: [number, string][] = [
      [0, '0s'],
      [-1500, '0s'],
      [-3 * s, '<invalid>'],
      [59 * s, '59s'],
      [119 * s, '119s'],
      [2 * m, '2m'],
      [3 * m + 20 * s, '3m20s'],
      [10 * m + 59 * s, '10m'],
      [179 * m, '179m'],
      [3 * h, '3h'],
      [7 * h + 5 * m, '7h5m'],
      [47 * h, '47h'],
      [2 * d, '2d'],
      [7 * d + 23 * h, '7d23h'],
      [8 * d + 5 * h, '8d'],
      [729 * d, '729d'],
      [730 * d, '2y'],
      [800 * d, '2y70d'],
      [9 * 365 * d, '9y'],
    ];
    for (const [ms, text] of cases) assert.equal(humanDuration(ms), text, `${ms} ms`);
  });
});

describe('timestampAge', () => {
  test('is the human duration since an RFC 3339 timestamp, <unknown> without one and <invalid> when unparseable', () => {
    const now = Date.parse('2024-05-01T12:00:00Z');
    assert.equal(timestampAge('2024-05-01T11:55:00Z', now), '5m');
    assert.equal(timestampAge('2024-04-28T12:00:00Z', now), '3d');
    assert.equal(timestampAge(undefined, now), '<unknown>');
    assert.equal(timestampAge('', now), '<unknown>');
    assert.equal(timestampAge('yesterday', now), '<invalid>');
    assert.equal(timestampAge('2024-05-01', now), '<invalid>', 'a date without a time is not RFC 3339');
  });
});
