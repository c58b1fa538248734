import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Duration } from 'luxon';
import { VirtualClock } from '../../clock.js';
import { isInvalidArgumentError } from '../../errors.js';
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, defaultControllerRateLimiter, maxOfRateLimiter } from './rate-limiter.js';

describe('ItemExponentialFailureRateLimiter', () => {
  test('with controller-runtime defaults it waits 5 ms doubling on each requeue up to a cap of 1000 s', () => {
    const limiter = new ItemExponentialFailureRateLimiter(5, Duration.fromObject({ seconds: 1000 }));
    const delays = Array.from({ length: 22 }, () => limiter.when('default/a'));
    const expected = Array.from({ length: 18 }, (_, i) => 5 * 2 ** i);
    assert.deepEqual(delays.slice(0, 18), expected);
    assert.equal(delays[17], 655_360);
    assert.deepEqual(delays.slice(18), [1_000_000, 1_000_000, 1_000_000, 1_000_000]);
    assert.equal(limiter.numRequeues('default/a'), 22);
  });

  test('keys back off independently and forget starts a key over', () => {
    const limiter = new ItemExponentialFailureRateLimiter(5, 1_000_000);
    limiter.when('a');
    limiter.when('a');
    assert.equal(limiter.when('b'), 5);
    assert.equal(limiter.when('a'), 20);
    limiter.forget('a');
    assert.equal(limiter.numRequeues('a'), 0);
    assert.equal(limiter.when('a'), 5);
    assert.equal(limiter.numRequeues('b'), 1);
  });

  test('a huge number of requeues stays at the cap instead of overflowing', () => {
    const limiter = new ItemExponentialFailureRateLimiter(5, 1000);
    let last = 0;
    for (let i = 0; i < 2000; i++) last = limiter.when('k');
    assert.equal(last, 1000);
  });

  test('negative or infinite delays are refused at construction', () => {
    assert.throws(() => new ItemExponentialFailureRateLimiter(-1, 10), isInvalidArgumentError);
    assert.throws(() => new ItemExponentialFailureRateLimiter(1, Number.POSITIVE_INFINITY), isInvalidArgumentError);
  });
});

describe('BucketRateLimiter', () => {
  test('lets a burst through, then spaces requeues 1/qps apart, refilling with virtual time', async () => {
    const clock = new VirtualClock();
    const limiter = new BucketRateLimiter({ qps: 10, burst: 3, clock });
    assert.deepEqual([limiter.when('a'), limiter.when('b'), limiter.when('c')], [0, 0, 0]);
    assert.equal(Math.round(limiter.when('d')), 100);
    assert.equal(Math.round(limiter.when('e')), 200);
    await clock.advance(1000);
    // 1 s adds 10 tokens: 2 repay the reservations made in advance, the rest refill the bucket up to its burst of 3.
    assert.deepEqual([limiter.when('f'), limiter.when('g'), limiter.when('h')], [0, 0, 0]);
    assert.equal(Math.round(limiter.when('i')), 100);
    assert.equal(limiter.numRequeues('a'), 0);
  });

  test('refuses a non-positive rate or burst', () => {
    assert.throws(() => new BucketRateLimiter({ qps: 0 }), isInvalidArgumentError);
    assert.throws(() => new BucketRateLimiter({ burst: 0 }), isInvalidArgumentError);
  });
});

describe('maxOfRateLimiter', () => {
  test('returns the largest delay, counts in every limiter and forgets in every limiter', () => {
    const a = new ItemExponentialFailureRateLimiter(5, 1_000_000);
    const b = new ItemExponentialFailureRateLimiter(1, 1_000_000);
    const max = maxOfRateLimiter(a, b);
    assert.deepEqual([max.when('k'), max.when('k'), max.when('k')], [5, 10, 20]);
    assert.equal(b.numRequeues('k'), 3);
    assert.equal(max.numRequeues('k'), 3);
    max.forget('k');
    assert.equal(a.numRequeues('k') + b.numRequeues('k'), 0);
  });

  test('needs at least one limiter', () => {
    assert.throws(() => maxOfRateLimiter(), isInvalidArgumentError);
  });
});

describe('defaultControllerRateLimiter', () => {
  test('backs one key off from 5 ms and makes the 101st requeue within an instant wait on the bucket', () => {
    const clock = new VirtualClock();
    const limiter = defaultControllerRateLimiter({ clock });
    assert.deepEqual([limiter.when('x'), limiter.when('x'), limiter.when('x')], [5, 10, 20]);
    for (let i = 0; i < 97; i++) limiter.when(`key-${i}`);
    // 100 tokens are spent; key-new's own backoff is 5 ms but the bucket needs 100 ms.
    assert.equal(Math.round(limiter.when('key-new')), 100);
  });
});
