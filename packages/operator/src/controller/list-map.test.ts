import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ListMap, newListMap } from './list-map.js';

describe('ListMap', () => {
  test('addItem appends in order and creates the key on first use', () => {
    const m = newListMap<number>();
    m.addItem('a', 1, 2);
    m.addItem('a', 3);
    m.addItem('b');
    assert.equal(m.size(), 2);
    assert.equal(m.keySize('a'), 3);
    assert.equal(m.keySize('b'), 0);
    assert.deepEqual(m.keys().sort(), ['a', 'b']);
  });

  test('itemAt returns the value and true, or undefined and false when key or index is missing', () => {
    const m = new ListMap<string, string>();
    m.addItem('k', 'x', 'y');
    assert.deepEqual(m.itemAt('k', 1), ['y', true]);
    assert.deepEqual(m.itemAt('k', 2), [undefined, false]);
    assert.deepEqual(m.itemAt('k', -1), [undefined, false]);
    assert.deepEqual(m.itemAt('nope', 0), [undefined, false]);
  });

  test('range visits the items of one key with their index, and rangeAll visits every key', () => {
    const m = newListMap<string>();
    m.addItem('a', 'a0', 'a1');
    m.addItem('b', 'b0');
    const seen: string[] = [];
    m.range('a', (i, v) => seen.push(`${i}:${v}`));
    assert.deepEqual(seen, ['0:a0', '1:a1']);
    const all: string[] = [];
    m.rangeAll((k, i, v) => all.push(`${k}${i}=${v}`));
    assert.deepEqual(all.sort(), ['a0=a0', 'a1=a1', 'b0=b0']);
    m.range('missing', () => assert.fail('no items'));
  });

  test('range iterates a snapshot so handlers may modify the list', () => {
    const m = newListMap<number>();
    m.addItem('a', 1, 2, 3);
    const seen: number[] = [];
    m.range('a', (_i, v) => {
      seen.push(v);
      m.removeItem('a', (x) => x === 3);
    });
    assert.deepEqual(seen, [1, 2, 3]);
    assert.equal(m.keySize('a'), 2);
  });

  test('removeItem removes only the first match and keeps order', () => {
    const m = newListMap<number>();
    m.addItem('a', 1, 2, 1, 3);
    assert.equal(m.removeItem('a', (x) => x === 1), true);
    assert.deepEqual([m.itemAt('a', 0)[0], m.itemAt('a', 1)[0], m.itemAt('a', 2)[0]], [2, 1, 3]);
    assert.equal(m.removeItem('a', (x) => x === 9), false);
    assert.equal(m.removeItem('missing', () => true), false);
  });

  test('removeItemAt removes one index and ignores bad keys and indexes', () => {
    const m = newListMap<string>();
    m.addItem('a', 'x', 'y', 'z');
    m.removeItemAt('a', 1);
    m.removeItemAt('a', 5);
    m.removeItemAt('b', 0);
    assert.equal(m.keySize('a'), 2);
    assert.deepEqual(m.itemAt('a', 1), ['z', true]);
  });

  test('removeItems honours the limit, and a limit below 1 removes every match', () => {
    const m = newListMap<number>();
    m.addItem('a', 1, 1, 2, 1, 1);
    assert.equal(m.removeItems('a', (x) => x === 1, 2), 2);
    assert.equal(m.keySize('a'), 3);
    assert.equal(m.removeItems('a', (x) => x === 1, 0), 2);
    assert.equal(m.keySize('a'), 1);
    assert.equal(m.removeItems('missing', () => true, -1), 0);
  });

  test('removing the last item keeps the key, and removeKey deletes it', () => {
    const m = newListMap<number>();
    m.addItem('a', 1);
    m.removeItemAt('a', 0);
    assert.equal(m.size(), 1);
    assert.equal(m.keySize('a'), 0);
    m.removeKey('a');
    assert.equal(m.size(), 0);
    assert.deepEqual(m.keys(), []);
  });
});
