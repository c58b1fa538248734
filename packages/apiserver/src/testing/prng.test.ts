import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Prng } from './prng.js';

test('a seed gives the same numbers on every run and every machine (sfc32 through splitmix32, pinned)', () => {
  const rng = new Prng(1);
  assert.deepEqual([rng.next(), rng.next(), rng.int(0, 1000)], [0.4256499295588583, 0.79042171058245, 691]);
});

test('int, chance, pick and weighted stay within what they were given', () => {
  const rng = new Prng(2024);
  for (let i = 0; i < 1000; i++) {
    const n = rng.int(3, 5);
    assert.ok(n >= 3 && n <= 5 && Number.isInteger(n));
    assert.ok(['a', 'b'].includes(rng.pick(['a', 'b'])));
    assert.equal(rng.weighted({ never: 0, always: 1 }), 'always');
  }
  assert.equal(rng.chance(0), false);
  assert.equal(rng.chance(1), true);
  assert.throws(() => rng.pick([]), RangeError);
});
