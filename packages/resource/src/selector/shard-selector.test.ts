import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isSelectorError } from '../errors.js';
import { ShardSelector, equalShardRange, shardRange, shardRanges, splitShardSpace } from './shard-selector.js';
import { shardHash, shardHashSpaceEnd } from './shard-hash.js';

const half = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
const upper = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')";

describe('ShardSelector.parse', () => {
  const valid: [text: string, canonical: string, ranges: [field: string, start: bigint, end: bigint][]][] = [
    [half, half, [['uid', 0n, 0x8000000000000000n]]],
    [`${half} || ${upper}`, `${half} || ${upper}`, [['uid', 0n, 0x8000000000000000n], ['uid', 0x8000000000000000n, 1n << 64n]]],
    ["shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff')", "shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff')", [['namespace', 0xaan, 0xffn]]],
    ["shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')", half, [['uid', 0n, 0x8000000000000000n]]],
    ["  shardRange( object.metadata.uid ,  \"0x0000000000000000\" ,  '0x8000000000000000' )  ", half, [['uid', 0n, 0x8000000000000000n]]],
    [`(${half}) || (${upper})`, `${half} || ${upper}`, [['uid', 0n, 0x8000000000000000n], ['uid', 0x8000000000000000n, 1n << 64n]]],
  ];
  for (const [text, canonical, ranges] of valid) {
    test(`parses ${text}`, () => {
      const selector = ShardSelector.parse(text);
      assert.equal(selector.toString(), canonical);
      assert.deepEqual(selector.ranges.map((r) => [r.field, r.start, r.end]), ranges);
      assert.equal(ShardSelector.parse(selector.toString()).toString(), canonical, 'round trip');
    });
  }

  const invalid: [text: string, message: string][] = [
    ['', 'empty shard selector is not allowed; omit the parameter for unfiltered lists'],
    ['   ', 'empty shard selector is not allowed; omit the parameter for unfiltered lists'],
    ["shardRange(object.metadata.uid, '0000000000000000', '0x8000000000000000')", `hexStart must have '0x' prefix, got "0000000000000000"`],
    ["shardRange(object.metadata.uid, '0x0000000000000000', '8000000000000000')", `hexEnd must have '0x' prefix, got "8000000000000000"`],
    ["shardRange(object.metadata.uid, '0x', '0x8000000000000000')", "hexStart: hex value is required after '0x'"],
    ["shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')", 'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace'],
    ["invalidFunc(object.metadata.uid, '0x00', '0x80')", 'unsupported function "invalidFunc"; only shardRange() and || are allowed'],
    ["shardRange(object.metadata.uid, '0x000000000000000000', '0x8000000000000000')", 'hexStart: hex value too long (18 chars, max 17): "000000000000000000"'],
    ["shardRange(object.metadata.uid, '0x000000000000000g', '0x8000000000000000')", 'hexStart: invalid hex character "g" in "0x000000000000000g"'],
    ["shardRange(object.metadata.uid, '0x000000000000000A', '0x8000000000000000')", 'hexStart: invalid hex character "A" in "0x000000000000000A"'],
    [`${half} && ${upper}`, 'unsupported function "_&&_"; only shardRange() and || are allowed'],
    ['shardRange(object.metadata.uid, 0, 8)', 'hexStart must be a string literal, got int64'],
    ["object.metadata.uid > '0x0'", 'unexpected expression object.metadata.uid; expected shardRange() call or || operator'],
    ["shardRange(object.metadata.uid, '0x0000000000000000')", 'shardRange() requires exactly 3 arguments, got 2'],
    ["shardRange(object.metadata.uid, hex(0), '0x8000000000000000')", "hexStart must be a string literal (e.g. '0xff'), got a function call hex(0)"],
    ["shardRange(object.metadata.uid, '0x0', '0x8000000000000000')", 'hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)'],
    ["shardRange(object.metadata.uid, '0x0000000000000000', '0xff')", 'hexEnd must be a 0x-prefixed 16-digit hex value, got "0xff" (did you mean "0x00000000000000ff"?)'],
    ["shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')", `hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got "0x20000000000000000"`],
    ["shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')", 'shard range start 0x8000000000000000 must be less than end 0x8000000000000000'],
    ["shardRange(object.metadata.uid, '0xffffffffffffffff', '0x0000000000000000')", 'shard range start 0xffffffffffffffff must be less than end 0x0000000000000000'],
    [`${half} || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')`, 'all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"'],
    [`${half} ||`, "CEL parse error: Syntax error: unexpected input, got end of input at position 78"],
    [`${half} ${upper}`, "CEL parse error: Syntax error: unexpected input, got 'shardRange' at position 76"],
    [`shardRange(object.metadata.uid, '0x0000000000000000, '0x8000000000000000')`, 'CEL parse error: Syntax error: unterminated string literal at position 72'],
    ['shardRange(object.metadata.uid; 1)', "CEL parse error: Syntax error: token recognition error at: ';' (position 30)"],
    [`${'('.repeat(40)}${half}${')'.repeat(40)}`, 'parentheses nested deeper than 32'],
    [`!${half}`, 'unsupported function "!_"; only shardRange() and || are allowed'],
  ];
  for (const [text, message] of invalid) {
    test(`refuses ${JSON.stringify(text).slice(0, 90)}`, () => {
      assert.throws(() => ShardSelector.parse(text), (err: unknown) => {
        assert.ok(isSelectorError(err), String(err));
        assert.equal(err.message, `invalid shard selector: ${message}`);
        assert.equal(err.selector, text);
        return true;
      });
    });
  }
});

describe('ShardSelector.matches', () => {
  test('start inclusive, end exclusive, on the FNV-1a 64 hash of the field', () => {
    const a = shardHash('a'); // 0xaf63dc4c8601ec8c
    const at = ShardSelector.of([shardRange('uid', a, a + 1n)]);
    assert.equal(at.matches({ metadata: { uid: 'a' } }), true);
    assert.equal(ShardSelector.of([shardRange('uid', 0n, a)]).matches({ metadata: { uid: 'a' } }), false, 'end exclusive');
    assert.equal(ShardSelector.of([shardRange('uid', a + 1n, shardHashSpaceEnd)]).matches({ metadata: { uid: 'a' } }), false);
    assert.equal(ShardSelector.of([shardRange('uid', a, shardHashSpaceEnd)]).matches({ metadata: { uid: 'a' } }), true, 'start inclusive, top 2^64');
    // Halves that differ only in the low 32 bits.
    assert.equal(ShardSelector.of([shardRange('uid', a - 1n, a)]).matches({ metadata: { uid: 'a' } }), false);
    assert.equal(ShardSelector.of([shardRange('uid', (a >> 32n) << 32n, a)]).matches({ metadata: { uid: 'a' } }), false);
    assert.equal(ShardSelector.of([shardRange('uid', (a >> 32n) << 32n, a + 1n)]).matches({ metadata: { uid: 'a' } }), true);
  });

  test('namespace field: a cluster-scoped object hashes the empty namespace', () => {
    const empty = shardHash('');
    const selector = ShardSelector.of([shardRange('namespace', empty, empty + 1n)]);
    assert.equal(selector.matches({ metadata: { uid: 'x' } }), true);
    assert.equal(selector.matches({ metadata: { namespace: 'default', uid: 'x' } }), false);
  });

  test('N equal ranges partition the space: every UID matches exactly one', () => {
    for (const count of [1, 2, 3, 7]) {
      const selectors = splitShardSpace(count).map((range) => shardRanges([range]));
      for (let i = 0; i < 300; i++) {
        const uid = `uid-${i}-${count}`;
        assert.equal(selectors.filter((s) => s.matches({ metadata: { uid } })).length, 1, uid);
      }
    }
    assert.equal(equalShardRange(0, 2).end, 0x8000000000000000n);
    assert.equal(equalShardRange(1, 2).end, 1n << 64n);
    assert.equal(equalShardRange(1, 3).start, 0x5555555555555555n);
    assert.equal(shardRanges(splitShardSpace(2)).toString(), `${half} || ${upper}`);
  });

  test('the builder refuses what the parser would', () => {
    assert.throws(() => shardRange('uid', 5n, 5n), RangeError);
    assert.throws(() => shardRange('uid', 0n, (1n << 64n) + 1n), RangeError);
    assert.throws(() => shardRange('name' as 'uid', 0n, 1n), RangeError);
    assert.throws(() => shardRanges([]), RangeError);
    assert.throws(() => shardRanges([shardRange('uid', 0n, 1n), shardRange('namespace', 1n, 2n)]), /same field/);
    assert.throws(() => splitShardSpace(0), RangeError);
    assert.throws(() => equalShardRange(2, 2), RangeError);
  });
});
