import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, CodecError, NetworkError } from '@kubeloop/resource';
import type { Backoff } from './backoff.js';
import { InvalidTransitionError, healthyWatchMs, initialInformerState, instantClosePauseMs, retryAfterMs, shortWatchMs, transition } from './informer-state.js';
import type { BackingOffState, InformerInput, InformerState, ListingState, WatchingState } from './informer-state.js';

/** A backoff that answers 1000, 2000, 3000... and counts its calls and resets. */
function countingBackoff(): Backoff & { calls: number; resets: number } {
  const b = {
    calls: 0,
    resets: 0,
    next(): number {
      return ++b.calls * 1000;
    },
    reset(): void {
      b.calls = 0;
      b.resets++;
    },
  };
  return b;
}

const gone = new ApiError({ status: 410, reason: 'Expired' });
const watching: WatchingState = { phase: 'Watching', resourceVersion: '10', afterList: false, instantCloses: 0 };
const afterList: WatchingState = { phase: 'Watching', resourceVersion: '10', afterList: true, instantCloses: 0 };
const healthy = { resourceVersion: '15', events: 3, durationMs: 60_000 };
const instant = { resourceVersion: '10', events: 0, durationMs: 10 };

function step(state: InformerState, input: InformerInput, backoff: Backoff = countingBackoff()): InformerState {
  return transition(state, input, { backoff });
}

describe('informer state machine', () => {
  test('a run starts with an initial list from the first page', () => {
    assert.deepEqual(initialInformerState, { phase: 'Listing', reason: 'initial', continueToken: undefined });
  });

  test('a page with a continue token lists the next page, keeping the reason', () => {
    const listing: ListingState = { phase: 'Listing', reason: 'expired', continueToken: undefined };
    assert.deepEqual(step(listing, { type: 'listPage', resourceVersion: '5', continueToken: 'abc' }), {
      phase: 'Listing',
      reason: 'expired',
      continueToken: 'abc',
    });
  });

  test('the last page moves to Listed with the list resourceVersion', () => {
    assert.deepEqual(step(initialInformerState, { type: 'listPage', resourceVersion: '42', continueToken: undefined }), {
      phase: 'Listed',
      reason: 'initial',
      resourceVersion: '42',
    });
  });

  test('a failed page backs off, then retries the same page', () => {
    const listing: ListingState = { phase: 'Listing', reason: 'initial', continueToken: 'tok' };
    const next = step(listing, { type: 'listFailed', error: new NetworkError('reset') }) as BackingOffState;
    assert.equal(next.phase, 'BackingOff');
    assert.equal(next.delayMs, 1000);
    assert.equal(next.next, listing);
  });

  test('an expired continue token (410) backs off, then lists from the start', () => {
    const listing: ListingState = { phase: 'Listing', reason: 'initial', continueToken: 'tok' };
    const next = step(listing, { type: 'listFailed', error: gone }) as BackingOffState;
    assert.equal(next.phase, 'BackingOff');
    assert.deepEqual(next.next, { phase: 'Listing', reason: 'initial', continueToken: undefined });
  });

  test('a committed list starts a watch from the list resourceVersion', () => {
    assert.deepEqual(step({ phase: 'Listed', reason: 'initial', resourceVersion: '42' }, { type: 'committed' }), {
      phase: 'Watching',
      resourceVersion: '42',
      afterList: true,
      instantCloses: 0,
    });
  });

  test('a cleanly ended watch resumes at once from the last resourceVersion, without touching the error backoff', () => {
    const backoff = countingBackoff();
    assert.deepEqual(step(watching, { type: 'watchClosed', ...healthy }, backoff), { phase: 'Watching', resourceVersion: '15', afterList: false, instantCloses: 0 });
    assert.equal(backoff.calls, 0);
  });

  test('a watch that ends cleanly at once (no event) is no error: it is resumed at once and the backoff does not grow', () => {
    const backoff = countingBackoff();
    assert.deepEqual(step(watching, { type: 'watchClosed', ...instant }, backoff), { phase: 'Watching', resourceVersion: '10', afterList: false, instantCloses: 1 });
    assert.equal(backoff.calls, 0);
  });

  test('watches that keep ending cleanly at once pause a fixed second between them, never through the error backoff', () => {
    const backoff = countingBackoff();
    let state: InformerState = watching;
    const pauses: number[] = [];
    for (let i = 0; i < 4; i++) {
      state = step(state, { type: 'watchClosed', ...instant }, backoff);
      if (state.phase === 'BackingOff') {
        assert.equal(state.reason, 'instantClose');
        assert.equal(state.cause, undefined);
        pauses.push(state.delayMs);
        state = step(state, { type: 'backoffElapsed' }, backoff);
      } else pauses.push(0);
    }
    assert.deepEqual(pauses, [0, instantClosePauseMs, instantClosePauseMs, instantClosePauseMs]);
    assert.equal(backoff.calls, 0);
    // A watch that lasts ends the streak: the next instant end is resumed at once again.
    const healthyEnd = step(state, { type: 'watchClosed', resourceVersion: '20', events: 0, durationMs: shortWatchMs }, backoff);
    assert.deepEqual(healthyEnd, { phase: 'Watching', resourceVersion: '20', afterList: false, instantCloses: 0 });
    assert.equal(step(healthyEnd, { type: 'watchClosed', ...instant }, backoff).phase, 'Watching');
  });

  test('an error after instant ends backs off through the error backoff and ends the streak', () => {
    const backoff = countingBackoff();
    const streak: WatchingState = { ...watching, instantCloses: 3 };
    const next = step(streak, { type: 'watchFailed', error: new NetworkError('x'), ...instant }, backoff) as BackingOffState;
    assert.equal(next.reason, 'error');
    assert.equal(next.delayMs, 1000);
    assert.deepEqual(next.next, { phase: 'Watching', resourceVersion: '10', afterList: false, instantCloses: 0 });
  });

  test('a watch that delivered an event resets the error backoff, however it ended', () => {
    for (const ending of [{ type: 'watchClosed' }, { type: 'watchInactive' }, { type: 'watchFailed', error: new NetworkError('x') }] as const) {
      const backoff = countingBackoff();
      backoff.next();
      backoff.next();
      backoff.next();
      const next = step(watching, { ...ending, resourceVersion: '11', events: 1, durationMs: 5 }, backoff);
      assert.equal(backoff.resets, 1, ending.type);
      if (ending.type === 'watchFailed') assert.equal((next as BackingOffState).delayMs, 1000, 'the next error waits the first delay again');
    }
  });

  test('a watch open for the healthy threshold without events also resets the backoff; a shorter one does not', () => {
    const backoff = countingBackoff();
    backoff.next();
    const failed = (durationMs: number): BackingOffState =>
      step(watching, { type: 'watchFailed', error: new ApiError({ status: 500 }), resourceVersion: '10', events: 0, durationMs }, backoff) as BackingOffState;
    assert.equal(failed(healthyWatchMs - 1).delayMs, 2000, 'a short failing watch keeps growing the backoff');
    assert.equal(failed(healthyWatchMs - 1).delayMs, 3000);
    assert.equal(failed(healthyWatchMs).delayMs, 1000);
  });

  test('an inactive watch is resumed at once from the last resourceVersion', () => {
    assert.deepEqual(step(watching, { type: 'watchInactive', resourceVersion: '12', events: 0, durationMs: 300_000 }), {
      phase: 'Watching',
      resourceVersion: '12',
      afterList: false,
      instantCloses: 0,
    });
  });

  test('410 on a resumed watch relists at once', () => {
    const backoff = countingBackoff();
    assert.deepEqual(step(watching, { type: 'watchFailed', error: gone, ...instant }, backoff), {
      phase: 'Listing',
      reason: 'expired',
      continueToken: undefined,
    });
    assert.equal(backoff.calls, 0);
  });

  test('410 on a watch that started right after a list and saw nothing backs off before relisting', () => {
    const next = step(afterList, { type: 'watchFailed', error: gone, ...instant }) as BackingOffState;
    assert.equal(next.phase, 'BackingOff');
    assert.deepEqual(next.next, { phase: 'Listing', reason: 'expired', continueToken: undefined });
  });

  test('410 after events on a watch that started after a list relists at once', () => {
    assert.equal(step(afterList, { type: 'watchFailed', error: gone, ...healthy }).phase, 'Listing');
  });

  for (const [name, error] of [
    ['a network error', new NetworkError('ECONNRESET')],
    ['a 500', new ApiError({ status: 500 })],
    ['a 401', new ApiError({ status: 401 })],
    ['a 403', new ApiError({ status: 403 })],
    ['a malformed line', new CodecError('bad line')],
  ] as const) {
    test(`${name} on a watch backs off, then resumes from the last resourceVersion`, () => {
      const next = step(watching, { type: 'watchFailed', error, ...healthy }) as BackingOffState;
      assert.equal(next.phase, 'BackingOff');
      assert.equal(next.cause, error);
      assert.deepEqual(next.next, { phase: 'Watching', resourceVersion: '15', afterList: false, instantCloses: 0 });
    });
  }

  test('Retry-After is a floor under the backoff delay', () => {
    const tooMany = new ApiError({ status: 429, retryAfterSeconds: 7 });
    const next = step(watching, { type: 'watchFailed', error: tooMany, ...healthy }) as BackingOffState;
    assert.equal(next.delayMs, 7000);
    const backoff: Backoff = { next: () => 9000, reset: () => undefined };
    assert.equal((step(watching, { type: 'watchFailed', error: tooMany, ...healthy }, backoff) as BackingOffState).delayMs, 9000);
  });

  test('consecutive errors of watches that never worked take successive backoff delays', () => {
    const backoff = countingBackoff();
    const first = step(watching, { type: 'watchFailed', error: new NetworkError('x'), ...instant }, backoff) as BackingOffState;
    const resumed = step(first, { type: 'backoffElapsed' }, backoff);
    const second = step(resumed, { type: 'watchFailed', error: new NetworkError('x'), ...instant }, backoff) as BackingOffState;
    assert.deepEqual([first.delayMs, second.delayMs], [1000, 2000]);
  });

  test('an elapsed backoff enters the state it was waiting for', () => {
    const backingOff: BackingOffState = { phase: 'BackingOff', reason: 'error', delayMs: 5, cause: new Error('x'), next: watching };
    assert.equal(step(backingOff, { type: 'backoffElapsed' }), watching);
  });

  test('abort stops the machine from every state', () => {
    const states: InformerState[] = [
      initialInformerState,
      { phase: 'Listed', reason: 'initial', resourceVersion: '1' },
      watching,
      { phase: 'BackingOff', reason: 'error', delayMs: 5, cause: undefined, next: watching },
      { phase: 'Stopped' },
    ];
    for (const s of states) assert.deepEqual(step(s, { type: 'aborted' }), { phase: 'Stopped' });
  });

  test('an input that does not belong to the state is a bug, reported loudly', () => {
    assert.throws(() => step(watching, { type: 'committed' }), InvalidTransitionError);
    assert.throws(() => step(initialInformerState, { type: 'backoffElapsed' }), InvalidTransitionError);
    assert.throws(() => step({ phase: 'Stopped' }, { type: 'committed' }), InvalidTransitionError);
  });

  test('retryAfterMs reads Retry-After of API errors only', () => {
    assert.equal(retryAfterMs(new ApiError({ status: 503, retryAfterSeconds: 2 })), 2000);
    assert.equal(retryAfterMs(new ApiError({ status: 500 })), 0);
    assert.equal(retryAfterMs(new Error('x')), 0);
  });
});
