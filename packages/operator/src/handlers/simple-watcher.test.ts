import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testContext, widget } from '../testing/informer-fakes.test-helper.js';
import { SimpleWatcher } from './simple-watcher.js';

describe('SimpleWatcher', () => {
  test('calls each function that is set, with the objects it received', async () => {
    const calls: string[] = [];
    const w = new SimpleWatcher({
      addFunc: async (_ctx, o) => void calls.push(`add ${o.metadata.name}`),
      updateFunc: async (_ctx, a, b) => void calls.push(`update ${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`),
      deleteFunc: async (_ctx, o) => void calls.push(`delete ${o.metadata.name}`),
    });
    await w.add(testContext, widget('a', '1'));
    await w.update(testContext, widget('a', '1'), widget('a', '2'));
    await w.delete(testContext, widget('a', '3'));
    assert.deepEqual(calls, ['add a', 'update 1->2', 'delete a']);
  });

  test('a missing function makes its event a no-op', async () => {
    const w = new SimpleWatcher();
    await w.add(testContext, widget('a', '1'));
    await w.update(testContext, widget('a', '1'), widget('a', '2'));
    await w.delete(testContext, widget('a', '1'));
  });

  test('an error of a function is the error of the call', async () => {
    const w = new SimpleWatcher();
    w.addFunc = () => Promise.reject(new Error('nope'));
    await assert.rejects(w.add(testContext, widget('a', '1')), /nope/);
  });
});
