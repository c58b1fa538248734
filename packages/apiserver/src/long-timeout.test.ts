import { afterEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { maxTimerDelayMs, setLongTimeout } from './long-timeout.js';

describe('setLongTimeout', () => {
  afterEach(() => mock.timers.reset());

  test('waits the whole delay when it is longer than a Node timer can hold, instead of firing at once', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    let fired = 0;
    const delay = 2_147_484 * 1000; // timeoutSeconds=2147484: just past Node's 24.8 days
    setLongTimeout(() => fired++, delay);
    mock.timers.tick(1);
    assert.equal(fired, 0, 'not after 1 ms');
    mock.timers.tick(maxTimerDelayMs);
    assert.equal(fired, 0, 'not after 24.8 days');
    mock.timers.tick(delay - maxTimerDelayMs - 2);
    assert.equal(fired, 0, 'not 1 ms early');
    mock.timers.tick(1);
    assert.equal(fired, 1, 'at the deadline');
  });

  test('fires short delays as setTimeout does, and can be cancelled at any step', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    let short = 0;
    setLongTimeout(() => short++, 50);
    mock.timers.tick(50);
    assert.equal(short, 1);

    let cancelled = 0;
    const cancel = setLongTimeout(() => cancelled++, 3 * maxTimerDelayMs);
    mock.timers.tick(maxTimerDelayMs + 5);
    cancel();
    mock.timers.tick(3 * maxTimerDelayMs);
    assert.equal(cancelled, 0);
  });
});
