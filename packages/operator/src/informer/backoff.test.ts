import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JitteredExponentialBackoff } from './backoff.js';
import { VirtualClock } from '../clock.js';

describe('JitteredExponentialBackoff', () => {
  test('without jitter the schedule doubles from 0.8 s and stops growing at 30 s', () => {
    const backoff = new JitteredExponentialBackoff({ jitter: 'none', clock: new VirtualClock() });
    const delays = Array.from({ length: 8 }, () => backoff.next());
    assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  });

  test('full jitter stays between the minimum and the doubling ceiling', () => {
    const low = new JitteredExponentialBackoff({ random: () => 0, clock: new VirtualClock() });
    const high = new JitteredExponentialBackoff({ random: () => 0.999999, clock: new VirtualClock() });
    const lows = Array.from({ length: 7 }, () => low.next());
    const highs = Array.from({ length: 7 }, () => high.next());
    assert.deepEqual(lows, [800, 800, 800, 800, 800, 800, 800]);
    assert.deepEqual(highs, [1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  });

  test('decorrelated jitter grows from the previous delay and respects the cap', () => {
    const backoff = new JitteredExponentialBackoff({ jitter: 'decorrelated', random: () => 1, clock: new VirtualClock() });
    const delays = Array.from({ length: 6 }, () => backoff.next());
    assert.deepEqual(delays, [2400, 7200, 21600, 30000, 30000, 30000]);
    const floor = new JitteredExponentialBackoff({ jitter: 'decorrelated', random: () => 0, clock: new VirtualClock() });
    assert.equal(floor.next(), 800);
  });

  test('reset() starts the schedule over', () => {
    const backoff = new JitteredExponentialBackoff({ jitter: 'none', clock: new VirtualClock() });
    backoff.next();
    backoff.next();
    backoff.reset();
    assert.equal(backoff.next(), 800);
  });

  test('after 120 s without a failure the schedule starts over by itself', async () => {
    const clock = new VirtualClock();
    const backoff = new JitteredExponentialBackoff({ jitter: 'none', clock });
    assert.equal(backoff.next(), 800);
    assert.equal(backoff.next(), 1600);
    await clock.advance(119_999);
    assert.equal(backoff.next(), 3200, 'still within the healthy period');
    await clock.advance(120_000);
    assert.equal(backoff.next(), 800);
  });

  test('options are validated', () => {
    assert.throws(() => new JitteredExponentialBackoff({ initialMs: 0 }), /initialMs/);
    assert.throws(() => new JitteredExponentialBackoff({ initialMs: 10, maxMs: 5 }), /maxMs/);
    assert.throws(() => new JitteredExponentialBackoff({ factor: 0.5 }), /factor/);
  });
});
