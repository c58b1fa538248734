import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HandlerCallLog } from './handler-call-log.js';
import type { HandlerCall } from './handler-call-log.js';

const ok = (at: number): Omit<HandlerCall, 'error'> => ({ at, handler: 'reconciler', action: 'Updated', attempt: 0, result: 'ok', durationMs: 1 });

test('keeps the last callsPerObject calls of an object, newest first', () => {
  const log = new HandlerCallLog({ callsPerObject: 3 });
  for (let at = 1; at <= 5; at++) log.record('Widget', 'default/a', ok(at));
  const [a] = log.objects();
  assert.deepEqual(a?.calls.map((c) => c.at), [5, 4, 3]);
  assert.equal(log.totalCalls, 5, 'calls no longer kept still count');
});

test('keeps the maxObjects most recently called objects, dropping the least recently called', () => {
  const log = new HandlerCallLog({ maxObjects: 2 });
  log.record('Widget', 'default/a', ok(1));
  log.record('Widget', 'default/b', ok(2));
  log.record('Widget', 'default/a', ok(3)); // a is now the most recent: b goes first
  log.record('Widget', 'default/c', ok(4));
  assert.deepEqual(log.objects().map((o) => o.key), ['default/c', 'default/a']);
  assert.deepEqual(log.objects()[1]?.calls.map((c) => c.at), [3, 1]);
});

test('the same name of two kinds is two objects', () => {
  const log = new HandlerCallLog();
  log.record('Widget', 'default/a', ok(1));
  log.record('Gadget', 'default/a', ok(2));
  assert.deepEqual(log.objects().map((o) => `${o.kind} ${o.key}`), ['Gadget default/a', 'Widget default/a']);
});

test('a failed call keeps its error message, cut to maxErrorLength, and becomes the last error', () => {
  const log = new HandlerCallLog({ maxErrorLength: 10 });
  log.record('Widget', 'default/a', { ...ok(7), result: 'error', attempt: 2, retryInMs: 5_000 }, new Error('quota exceeded for this namespace'));
  log.record('Widget', 'default/b', ok(8));
  const call = log.objects()[1]?.calls[0];
  assert.equal(call?.error, 'quota exc…');
  assert.equal(call?.retryInMs, 5_000);
  assert.equal(call?.attempt, 2);
  assert.deepEqual(log.lastError, { at: 7, kind: 'Widget', key: 'default/a', message: 'quota exc…' });
  assert.equal(log.failedCalls, 1);
});

test('an error that is not an Error is shown as text, with its class name when it is a subclass', () => {
  const log = new HandlerCallLog();
  class QuotaError extends Error {
    override name = 'QuotaError';
  }
  log.record('Widget', 'default/a', { ...ok(1), result: 'error' }, 'plain string');
  log.record('Widget', 'default/a', { ...ok(2), result: 'error' }, new QuotaError('no room'));
  assert.deepEqual(log.objects()[0]?.calls.map((c) => c.error), ['QuotaError: no room', 'plain string']);
});

test('memory is bounded: many objects and calls keep at most maxObjects x callsPerObject records', () => {
  const log = new HandlerCallLog({ maxObjects: 50, callsPerObject: 4 });
  // Bursts of 10 calls per object, over 300 objects again and again.
  for (let i = 0; i < 20_000; i++) log.record('Widget', `default/w-${Math.floor(i / 10) % 300}`, ok(i));
  const objects = log.objects();
  assert.equal(objects.length, 50);
  assert.equal(objects.reduce((n, o) => n + o.calls.length, 0), 200);
  assert.equal(objects[0]?.key, `default/w-${Math.floor(19_999 / 10) % 300}`, 'the most recently called first');
});

test('rejects bounds that are not positive integers', () => {
  assert.throws(() => new HandlerCallLog({ maxObjects: 0 }), /maxObjects must be an integer >= 1/);
  assert.throws(() => new HandlerCallLog({ callsPerObject: 1.5 }), /callsPerObject/);
});
