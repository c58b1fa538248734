import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeHtml } from './escape-html.js';

test('escapes the five characters that matter in element content and quoted attributes', () => {
  assert.equal(escapeHtml(`<img src=x onerror="alert('1')">&amp;`), '&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;amp;');
  assert.equal(escapeHtml('plain text, ünïcode'), 'plain text, ünïcode');
});
