import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { WatchEvent } from '../client/types.js';
import { isNetworkError } from '../errors.js';
import { StreamWatchResponse } from './stream-watch-response.js';

function line(name: string, type = 'ADDED'): string {
  return JSON.stringify({ type, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } }) + '\n';
}

function names(events: WatchEvent[]): string[] {
  return events.map((e) => (e.type === 'ERROR' ? `error:${e.error.code}` : e.object.metadata.name));
}

async function collect(watch: AsyncIterable<WatchEvent>): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  for await (const event of watch) events.push(event);
  return events;
}

/** `promise`, or 'pending' if it has not settled within `ms` (a hang detector, not a timing assertion). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    return await Promise.race([promise, pending]);
  } finally {
    clearTimeout(timer);
  }
}

describe('StreamWatchResponse', () => {
  test('a body whose connection closed before the watch was made fails at once with a NetworkError, instead of waiting forever', async () => {
    // An HTTP response whose socket closed before anyone listened emits no 'error' (Node drops it
    // when there is no listener), only 'close': a listener attached afterwards hears nothing.
    const body = new PassThrough();
    body.write(line('a'));
    body.destroy();
    await new Promise((resolve) => body.once('close', resolve));
    const watch = new StreamWatchResponse(body);
    const outcome = await within(
      watch.next().then(
        () => 'resolved',
        (error: unknown) => (isNetworkError(error) ? 'network error' : `other: ${String(error)}`),
      ),
      2000,
    );
    assert.equal(outcome, 'network error');
    assert.deepEqual(await watch.next(), { done: true, value: undefined });
  });

  test('a body that had already failed reports its error', async () => {
    const body = new PassThrough();
    body.on('error', () => {});
    body.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await new Promise((resolve) => body.once('close', resolve));
    const watch = new StreamWatchResponse(body);
    const error = await within(watch.next().then(() => undefined, (e: unknown) => e), 2000);
    assert.ok(isNetworkError(error));
    assert.match((error as Error).message, /socket hang up/);
  });

  test('yields the events of every chunk in order and ends when the stream ends', async () => {
    const body = new PassThrough();
    const watch = new StreamWatchResponse(body);
    const done = collect(watch);
    body.write(line('a') + line('b'));
    body.write(line('c').slice(0, 12));
    body.write(line('c').slice(12) + line('d'));
    body.end();
    assert.deepEqual(names(await done), ['a', 'b', 'c', 'd']);
  });

  test('answers next() from the buffer while decoded events are waiting', async () => {
    const body = new PassThrough();
    const watch = new StreamWatchResponse(body);
    body.write(line('a') + line('b') + line('c'));
    await new Promise((resolve) => setImmediate(resolve));
    const pending = Symbol('pending');
    // A resolved promise wins a race against another resolved promise created after it.
    const first = await Promise.race([watch.next(), Promise.resolve(pending)]);
    assert.notEqual(first, pending);
    assert.deepEqual(names([(first as IteratorYieldResult<WatchEvent>).value]), ['a']);
    watch.stop();
  });

  test('pauses the body above the high-water mark and resumes it once the events are consumed', async () => {
    const body = new PassThrough();
    const watch = new StreamWatchResponse(body, { highWaterMark: 10 });
    body.write(Array.from({ length: 25 }, (_, i) => line(`o${i}`)).join(''));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(body.isPaused(), true);
    const seen: string[] = [];
    for (let i = 0; i < 25; i++) {
      const result = await watch.next();
      assert.ok(result.done !== true);
      seen.push(...names([result.value]));
    }
    assert.equal(body.isPaused(), false);
    assert.equal(seen.length, 25);
    body.end();
    assert.equal((await watch.next()).done, true);
  });

  test('delivers the events already received, then throws a NetworkError when the connection fails', async () => {
    const body = new PassThrough();
    const watch = new StreamWatchResponse(body);
    body.write(line('a') + line('b'));
    await new Promise((resolve) => setImmediate(resolve));
    body.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const seen: WatchEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of watch) seen.push(event);
      })(),
      (err: unknown) => isNetworkError(err) && err.errno === 'ECONNRESET',
    );
    assert.deepEqual(names(seen), ['a', 'b']);
  });

  test('treats a close without an end as a NetworkError', async () => {
    const body = new PassThrough();
    const watch = new StreamWatchResponse(body);
    const done = collect(watch);
    body.write(line('a'));
    body.destroy();
    await assert.rejects(done, (err: unknown) => isNetworkError(err));
  });

  test('stop() ends a pending iteration normally and destroys the body', async () => {
    const body = new PassThrough();
    const watch = new StreamWatchResponse(body);
    const pending = watch.next();
    watch.stop();
    watch.stop();
    assert.deepEqual(await pending, { done: true, value: undefined });
    assert.equal(body.destroyed, true);
    assert.equal((await watch.next()).done, true);
  });

  test('an aborted signal ends iteration normally', async () => {
    const body = new PassThrough();
    const controller = new AbortController();
    const watch = new StreamWatchResponse(body, { signal: controller.signal });
    const done = collect(watch);
    body.write(line('a'));
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const events = await done;
    assert.ok(events.length <= 1);
    assert.equal(body.destroyed, true);
  });

  test('leaving a for-await loop early closes the body', async () => {
    const body = new PassThrough();
    const watch = new StreamWatchResponse(body);
    body.write(line('a') + line('b'));
    for await (const event of watch) {
      assert.deepEqual(names([event]), ['a']);
      break;
    }
    assert.equal(body.destroyed, true);
  });
});
