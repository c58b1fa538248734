import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { maxNestingDepth, nestingTooDeep, scanJsonText } from './json-text.js';

describe('scanJsonText', () => {
  test('reports repeated keys with their field paths, through arrays, ignoring braces and quotes inside strings', () => {
    const text = '{"a":1,"s":"{\\"a\\":[\\"}","list":[{"x":1},{"x":2,"x":3}],"nested":{"k":{"v":1,"v":2}},"a":2}';
    assert.deepEqual(scanJsonText(text, true), { tooDeep: false, duplicateFields: ['list[1].x', 'nested.k.v', 'a'] });
    assert.deepEqual(scanJsonText(text, false).duplicateFields, [], 'not looked for unless asked');
  });

  test('compares keys after unescaping them', () => {
    assert.deepEqual(scanJsonText('{"\\u0061":1,"a":2}', true).duplicateFields, ['a']);
  });

  test(`accepts ${maxNestingDepth} levels of nesting and refuses one more`, () => {
    const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
    assert.equal(scanJsonText(nested(maxNestingDepth), false).tooDeep, false);
    assert.equal(scanJsonText(nested(maxNestingDepth + 1), false).tooDeep, true);
  });
});

describe('nestingTooDeep', () => {
  test(`accepts ${maxNestingDepth} levels of a decoded value and refuses one more, without recursion`, () => {
    const nested = (depth: number): unknown => JSON.parse('{"a":'.repeat(depth - 1) + '[]' + '}'.repeat(depth - 1));
    assert.equal(nestingTooDeep(nested(maxNestingDepth)), false);
    assert.equal(nestingTooDeep(nested(maxNestingDepth + 1)), true);
    assert.equal(nestingTooDeep(nested(200_000)), true);
    assert.equal(nestingTooDeep('scalar'), false);
  });
});
