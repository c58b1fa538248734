import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, CodecError, NetworkError } from '@kubeloop/resource';
import type { Backoff } from './backoff.js';
import { InvalidTransitionError, initialInformerState, retryAfterMs, transition } from './informer-state.js';
import type { BackingOffState, InformerInput, InformerState, ListingState, WatchingState } from './informer-state.js';

/** A backoff that answers 1000, 2000, 3000... and counts resets. */
function countingBackoff(): Backoff & { calls: number } {
  const b = {
    calls: 0,
    next(): number {
      return ++b.calls * 1000;
    },
    reset(): void {
      b.calls = 0;
    },
  };
  return b;
}

const gone = new ApiError({ status: 410, reason: 'Expired' });
const watching: WatchingState = { phase: 'Watching', resourceVersion: '10', afterList: false };
const afterList: WatchingState = { phase: 'Watching', resourceVersion: '10', afterList: true };
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
    });
  });

  test('a cleanly closed watch resumes at once from the last resourceVersion', () => {
    const backoff = countingBackoff();
    assert.deepEqual(step(watching, { type: 'watchClosed', ...healthy }, backoff), { phase: 'Watching', resourceVersion: '15', afterList: false });
    assert.equal(backoff.calls, 0);
  });

  test('a watch that closes at once without any event backs off before resuming', () => {
    const next = step(watching, { type: 'watchClosed', ...instant }) as BackingOffState;
    assert.equal(next.phase, 'BackingOff');
    assert.deepEqual(next.next, { phase: 'Watching', resourceVersion: '10', afterList: false });
  });

  test('an inactive watch is resumed at once from the last resourceVersion', () => {
    assert.deepEqual(step(watching, { type: 'watchInactive', resourceVersion: '12', events: 0, durationMs: 300_000 }), {
      phase: 'Watching',
      resourceVersion: '12',
      afterList: false,
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
      assert.deepEqual(next.next, { phase: 'Watching', resourceVersion: '15', afterList: false });
    });
  }

  test('Retry-After is a floor under the backoff delay', () => {
    const tooMany = new ApiError({ status: 429, retryAfterSeconds: 7 });
    const next = step(watching, { type: 'watchFailed', error: tooMany, ...healthy }) as BackingOffState;
    assert.equal(next.delayMs, 7000);
    const backoff: Backoff = { next: () => 9000, reset: () => undefined };
    assert.equal((step(watching, { type: 'watchFailed', error: tooMany, ...healthy }, backoff) as BackingOffState).delayMs, 9000);
  });

  test('consecutive errors take successive backoff delays', () => {
    const backoff = countingBackoff();
    const first = step(watching, { type: 'watchFailed', error: new NetworkError('x'), ...healthy }, backoff) as BackingOffState;
    const resumed = step(first, { type: 'backoffElapsed' }, backoff);
    const second = step(resumed, { type: 'watchFailed', error: new NetworkError('x'), ...healthy }, backoff) as BackingOffState;
    assert.deepEqual([first.delayMs, second.delayMs], [1000, 2000]);
  });

  test('an elapsed backoff enters the state it was waiting for', () => {
    const backingOff: BackingOffState = { phase: 'BackingOff', delayMs: 5, cause: new Error('x'), next: watching };
    assert.equal(step(backingOff, { type: 'backoffElapsed' }), watching);
  });

  test('abort stops the machine from every state', () => {
    const states: InformerState[] = [
      initialInformerState,
      { phase: 'Listed', reason: 'initial', resourceVersion: '1' },
      watching,
      { phase: 'BackingOff', delayMs: 5, cause: undefined, next: watching },
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
