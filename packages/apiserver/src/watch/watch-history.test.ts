import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChangeEvent } from '../storage/change-event.js';
import { HistoryBudget } from '../storage/history-budget.js';
import { WatchHistory, changeBytes } from './watch-history.js';

function event(rv: number, filler = ''): ChangeEvent {
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `o${rv}`, resourceVersion: String(rv) }, data: { filler } };
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

  test('a shared byte budget forgets the oldest changes of any type first, and resumes from before them get 410', () => {
    const one = event(1, 'x'.repeat(1000));
    const budget = new HistoryBudget(changeBytes(one) * 3);
    const configMaps = new WatchHistory(100, 0, budget);
    const secrets = new WatchHistory(100, 0, budget);
    configMaps.push(one);
    secrets.push(event(2, 'x'.repeat(1000)));
    configMaps.push(event(3, 'x'.repeat(1000)));
    assert.equal(budget.bytes, changeBytes(one) * 3);
    assert.equal(configMaps.size, 2, 'within the budget nothing is forgotten');

    secrets.push(event(4, 'x'.repeat(1000)));
    assert.ok(budget.bytes <= budget.maxBytes);
    assert.equal(configMaps.after(0), undefined, 'rv 1, the oldest of all, was forgotten');
    assert.deepEqual(configMaps.after(1)?.map((e) => e.rv), [3]);
    assert.deepEqual(secrets.after(0)?.map((e) => e.rv), [2, 4], 'the other type kept its changes');

    secrets.push(event(5, 'x'.repeat(1000)));
    assert.equal(secrets.after(0), undefined, 'rv 2 went next');
    assert.equal(budget.bytes, changeBytes(one) * 3);
  });

  test('forget() and dispose() give their bytes back to the budget', () => {
    const budget = new HistoryBudget(1_000_000);
    const a = new WatchHistory(100, 0, budget);
    const b = new WatchHistory(100, 0, budget);
    a.push(event(1));
    b.push(event(2));
    a.forget(2);
    assert.equal(budget.bytes, changeBytes(event(2)));
    b.dispose();
    assert.equal(budget.bytes, 0);
  });
});
