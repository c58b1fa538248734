import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, NetworkError } from '@kubeloop/resource';
import type { Backoff } from './backoff.js';
import { InvalidTransitionError, initialState, refusesStreamingList, transition } from './informer-state.js';
import type { BackingOffState, InformerInput, InformerState, InitialListStrategy, StreamingListState, WatchingState } from './informer-state.js';
import { StreamingListIncompleteError } from './streaming-list.js';

/** A backoff that answers 1000, 2000, 3000... and counts its calls. */
function countingBackoff(): Backoff & { calls: number } {
  const b = {
    calls: 0,
    next: (): number => ++b.calls * 1000,
    reset: (): void => {
      b.calls = 0;
    },
  };
  return b;
}

function step(state: InformerState, input: InformerInput, strategy: InitialListStrategy, backoff: Backoff = countingBackoff()): InformerState {
  return transition(state, input, { backoff, initialListStrategy: strategy });
}

const streaming: StreamingListState = { phase: 'StreamingList', reason: 'initial', fallback: false };
const streamingAuto: StreamingListState = { phase: 'StreamingList', reason: 'initial', fallback: true };
const invalid = new ApiError({ status: 422, reason: 'Invalid', message: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled' });

describe('informer state machine: streaming initial list', () => {
  test('the initial state follows the strategy: paginated list, streamed, streamed with fallback', () => {
    const backoff = countingBackoff();
    assert.deepEqual(initialState({ backoff }), { phase: 'Listing', reason: 'initial', continueToken: undefined });
    assert.deepEqual(initialState({ backoff, initialListStrategy: 'list' }), { phase: 'Listing', reason: 'initial', continueToken: undefined });
    assert.deepEqual(initialState({ backoff, initialListStrategy: 'watchList' }), streaming);
    assert.deepEqual(initialState({ backoff, initialListStrategy: 'auto' }), streamingAuto);
  });

  test('the end-of-initial-events bookmark moves to Listed with its resourceVersion, keeping the reason', () => {
    assert.deepEqual(step({ ...streaming, reason: 'expired' }, { type: 'streamEnded', resourceVersion: '77' }, 'watchList'), {
      phase: 'Listed',
      reason: 'expired',
      resourceVersion: '77',
    });
  });

  test('under auto, a server that refuses the streaming request gets a paginated list at once, with no backoff', () => {
    const backoff = countingBackoff();
    assert.deepEqual(step(streamingAuto, { type: 'streamFailed', error: invalid }, 'auto', backoff), { phase: 'Listing', reason: 'initial', continueToken: undefined });
    assert.equal(backoff.calls, 0);
  });

  test('under watchList, a refusal backs off and streams again (no fallback)', () => {
    const next = step(streaming, { type: 'streamFailed', error: invalid }, 'watchList') as BackingOffState;
    assert.equal(next.phase, 'BackingOff');
    assert.equal(next.delayMs, 1000);
    assert.deepEqual(next.next, streaming);
  });

  for (const [name, error] of [
    ['a stream cut in the middle', new NetworkError('socket hang up')],
    ['a stream that ended before the bookmark', new StreamingListIncompleteError(3)],
    ['a 503', new ApiError({ status: 503, reason: 'ServiceUnavailable' })],
    ['a 429 with Retry-After', new ApiError({ status: 429, reason: 'TooManyRequests', retryAfterSeconds: 5 })],
  ] as const) {
    test(`under auto, ${name} backs off and streams again, not a fallback`, () => {
      const next = step(streamingAuto, { type: 'streamFailed', error }, 'auto') as BackingOffState;
      assert.equal(next.phase, 'BackingOff');
      assert.deepEqual(next.next, streamingAuto);
      assert.equal(next.delayMs, error instanceof ApiError && error.status === 429 ? 5000 : 1000);
    });
  }

  test('a 410 on the watch relists through a stream when the strategy streams, and through pages when it lists', () => {
    const watching: WatchingState = { phase: 'Watching', resourceVersion: '10', afterList: false, instantCloses: 0 };
    const gone = { type: 'watchFailed', error: new ApiError({ status: 410, reason: 'Expired' }), resourceVersion: '12', events: 2, durationMs: 50 } as const;
    assert.deepEqual(step(watching, gone, 'watchList'), { phase: 'StreamingList', reason: 'expired', fallback: false });
    assert.deepEqual(step(watching, gone, 'auto'), { phase: 'StreamingList', reason: 'expired', fallback: true });
    assert.deepEqual(step(watching, gone, 'list'), { phase: 'Listing', reason: 'expired', continueToken: undefined });
  });

  test('inputs of other phases are invalid in StreamingList, and aborted stops it', () => {
    assert.throws(() => step(streaming, { type: 'listPage', resourceVersion: '1', continueToken: undefined }, 'watchList'), InvalidTransitionError);
    assert.throws(() => step(streaming, { type: 'committed' }, 'watchList'), InvalidTransitionError);
    assert.deepEqual(step(streaming, { type: 'aborted' }, 'watchList'), { phase: 'Stopped' });
  });

  test('refusesStreamingList: only the answers of a server that does not serve it', () => {
    for (const status of [400, 405, 406, 415, 422, 501]) assert.equal(refusesStreamingList(new ApiError({ status })), true, `status ${status}`);
    for (const status of [401, 403, 404, 410, 429, 500, 503]) assert.equal(refusesStreamingList(new ApiError({ status })), false, `status ${status}`);
    assert.equal(refusesStreamingList(new NetworkError('reset')), false);
  });
});
