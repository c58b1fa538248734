import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Duration } from 'luxon';
import { TerminalError, isInvalidArgumentError } from '../errors.js';
import { DefaultRetryPolicy, exponentialBackoffRetryPolicy, toMillis } from './retry-policy.js';

const err = new Error('boom');

describe('exponentialBackoffRetryPolicy', () => {
  test('DefaultRetryPolicy retries attempts 0..5 after 5, 10, 20, 40, 80 and 160 seconds, then stops', () => {
    const delays = [0, 1, 2, 3, 4, 5].map((a) => DefaultRetryPolicy(err, a));
    assert.deepEqual(delays, [
      [true, 5000],
      [true, 10_000],
      [true, 20_000],
      [true, 40_000],
      [true, 80_000],
      [true, 160_000],
    ]);
    assert.deepEqual(DefaultRetryPolicy(err, 6), [false, 0]);
  });

  test('the delay is initial * 2^attempt and a luxon Duration is accepted as initial delay', () => {
    const p = exponentialBackoffRetryPolicy(Duration.fromObject({ milliseconds: 100 }), 3);
    assert.deepEqual(p(err, 0), [true, 100]);
    assert.deepEqual(p(err, 3), [true, 800]);
    assert.deepEqual(p(err, 4), [false, 0]);
  });

  test('a TerminalError is never retried', () => {
    assert.deepEqual(DefaultRetryPolicy(new TerminalError(err), 0), [false, 0]);
  });

  test('maxDelay caps every delay', () => {
    const p = exponentialBackoffRetryPolicy(1000, 10, { maxDelay: Duration.fromObject({ seconds: 3 }) });
    assert.deepEqual(p(err, 1), [true, 2000]);
    assert.deepEqual(p(err, 5), [true, 3000]);
  });

  test('jitter shortens each delay by at most the given fraction', () => {
    const low = exponentialBackoffRetryPolicy(1000, 5, { jitter: 0.5, random: () => 0.999999 });
    const high = exponentialBackoffRetryPolicy(1000, 5, { jitter: 0.5, random: () => 0 });
    const [, shortest] = low(err, 2);
    const [, longest] = high(err, 2);
    assert.ok(shortest > 2000 && shortest <= 2001, `shortest ${shortest}`);
    assert.equal(longest, 4000);
  });

  test('huge attempt counts stay finite under a cap', () => {
    const p = exponentialBackoffRetryPolicy(1000, 5000, { maxDelay: 60_000 });
    assert.deepEqual(p(err, 4000), [true, 60_000]);
  });

  test('invalid arguments throw InvalidArgumentError', () => {
    assert.throws(() => exponentialBackoffRetryPolicy(-1, 5), isInvalidArgumentError);
    assert.throws(() => exponentialBackoffRetryPolicy(Number.NaN, 5), isInvalidArgumentError);
    assert.throws(() => exponentialBackoffRetryPolicy(10, 5, { jitter: 2 }), isInvalidArgumentError);
    assert.throws(() => exponentialBackoffRetryPolicy(10, 5, { maxDelay: -5 }), isInvalidArgumentError);
  });

  test('toMillis reads numbers and luxon Durations', () => {
    assert.equal(toMillis(250), 250);
    assert.equal(toMillis(Duration.fromObject({ minutes: 1 })), 60_000);
  });
});
