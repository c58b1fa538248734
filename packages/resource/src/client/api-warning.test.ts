import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { logWarningsOnce, parseWarningHeaders } from './api-warning.js';

describe('parseWarningHeaders', () => {
  test('reads code and unquoted text of each warning, also several joined in one header', () => {
    assert.deepEqual(parseWarningHeaders('299 - "unknown field \\"spec.colour\\"", 299 - "v1beta1 Widget is deprecated"', 'POST /x'), [
      { code: 299, text: 'unknown field "spec.colour"', request: 'POST /x' },
      { code: 299, text: 'v1beta1 Widget is deprecated', request: 'POST /x' },
    ]);
    assert.deepEqual(parseWarningHeaders(['299 - "a, b"', '299 kube-apiserver "c" "Wed, 21 Oct 2015 07:28:00 GMT"'], 'GET /y').map((w) => w.text), ['a, b', 'c']);
  });

  test('keeps a malformed value as its raw text, and nothing for no header', () => {
    assert.deepEqual(parseWarningHeaders('something odd', 'GET /z'), [{ code: 299, text: 'something odd', request: 'GET /z' }]);
    assert.deepEqual(parseWarningHeaders(undefined, 'GET /z'), []);
  });
});

describe('logWarningsOnce', () => {
  test('writes each distinct warning once with console.warn', (t) => {
    const lines: unknown[] = [];
    t.mock.method(console, 'warn', (line: unknown) => void lines.push(line));
    const handler = logWarningsOnce();
    handler({ code: 299, text: 'deprecated', request: 'GET /a' });
    handler({ code: 299, text: 'deprecated', request: 'GET /b' });
    handler({ code: 299, text: 'unknown field "x"', request: 'POST /c' });
    assert.deepEqual(lines, ['Warning: deprecated (GET /a)', 'Warning: unknown field "x" (POST /c)']);
  });
});
