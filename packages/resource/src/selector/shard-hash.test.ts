import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatShardBound, shardHash, shardHashHalves, shardHashSpaceEnd } from './shard-hash.js';

/** FNV-1a 64 exactly as its definition reads (and as Go's hash/fnv New64a computes it): offset basis, then per byte xor and multiply by the prime, modulo 2^64. */
function fnv1a64Reference(value: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(value)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) % (1n << 64n);
  }
  return hash;
}

test('shardHash: the published FNV-1a 64 values', () => {
  assert.equal(shardHash(''), 0xcbf29ce484222325n);
  assert.equal(shardHash('a'), 0xaf63dc4c8601ec8cn);
  assert.equal(shardHash('foobar'), 0x85944171f73967e8n);
});

test('shardHash: equal to the definition on fixed inputs (ASCII, UIDs, namespaces, multi-byte UTF-8)', () => {
  const inputs = [
    'b', 'ab', 'abc', 'default', 'kube-system',
    '0b2c7a1e-3f4d-4c5b-9a8e-1f2e3d4c5b6a', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-0000-0000-000000000000',
    'ü', '日本語', 'emoji-🚀', '\u0000', '\u007f\u0080', 'x'.repeat(1000),
  ];
  for (const input of inputs) {
    const expected = fnv1a64Reference(input);
    assert.equal(shardHash(input), expected, JSON.stringify(input));
    const [high, low] = shardHashHalves(input);
    assert.equal((BigInt(high) << 32n) | BigInt(low), expected);
    assert.ok(expected < shardHashSpaceEnd);
  }
});

test('formatShardBound: 0x and 16 digits, 17 for 2^64', () => {
  assert.equal(formatShardBound(0n), '0x0000000000000000');
  assert.equal(formatShardBound(0xaf63dc4c8601ec8cn), '0xaf63dc4c8601ec8c');
  assert.equal(formatShardBound(shardHashSpaceEnd), '0x10000000000000000');
});
