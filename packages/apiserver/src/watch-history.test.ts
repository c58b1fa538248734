import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChangeEvent } from './change-event.js';
import { WatchHistory } from './watch-history.js';

function event(rv: number): ChangeEvent {
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `o${rv}`, resourceVersion: String(rv) } };
  return new ChangeEvent('ADDED', { object, json: JSON.stringify(object), rv, key: `o${rv}` }, undefined);
}

describe('WatchHistory', () => {
  test('returns the changes after a resourceVersion, oldest first', () => {
    const history = new WatchHistory(10, 0);
    for (const rv of [2, 5, 9]) history.push(event(rv));
    assert.deepEqual(history.after(0)?.map((e) => e.rv), [2, 5, 9]);
    assert.deepEqual(history.after(5)?.map((e) => e.rv), [9]);
    assert.deepEqual(history.after(6)?.map((e) => e.rv), [9]);
    assert.deepEqual(history.after(9), []);
  });

  test('forgets the oldest changes beyond its capacity and refuses resumes from before them', () => {
    const history = new WatchHistory(3, 0);
    for (let rv = 1; rv <= 10; rv++) history.push(event(rv));
    assert.equal(history.size, 3);
    assert.equal(history.since, 7);
    assert.equal(history.after(6), undefined);
    assert.deepEqual(history.after(7)?.map((e) => e.rv), [8, 9, 10]);
  });

  test('forget() makes every older resume fail while the present still works', () => {
    const history = new WatchHistory(10, 0);
    history.push(event(1));
    history.forget(4);
    assert.equal(history.after(1), undefined);
    assert.deepEqual(history.after(4), []);
  });
});
