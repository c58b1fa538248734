import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStyle } from '../style.js';
import { LiveStatus } from './live-status.js';
import { summarize, summaryLine } from './status-summary.js';

function output(isTTY: boolean): { written: string[]; write(text: string): void; isTTY: boolean; style: ReturnType<typeof createStyle> } {
  const written: string[] = [];
  return { written, write: (text) => written.push(text), isTTY, style: createStyle(false) };
}

test('off a terminal: a plain line when the status changed, none when it did not; messages as they come', () => {
  const out = output(false);
  const status = new LiveStatus(out);
  status.update(['a']);
  status.update(['a']);
  status.message('restarted');
  status.update(['b', 'c']);
  assert.deepEqual(out.written, ['a\n', 'restarted\n', 'b | c\n']);
  assert.ok(!out.written.join('').includes('\u001b'), 'no escape sequence off a terminal');
});

test('on a terminal: the status lines are erased and drawn again below each message', () => {
  const out = output(true);
  const status = new LiveStatus(out);
  status.update(['one', 'two']);
  status.message('restarted');
  assert.deepEqual(out.written, ['one\n', 'two\n', '\u001b[1A\u001b[2K\u001b[1A\u001b[2K\r', 'restarted\n', 'one\n', 'two\n']);
});

test("the summary adds up every controller's calls and errors, counts objects per kind, and names the newest error", () => {
  const summary = summarize({
    controllers: [
      {
        informers: [{ kind: 'Website.example.com', objects: 2 }, { kind: 'Deployment.apps', objects: 2 }],
        totals: { calls: 10, errors: 1, lastError: { at: 5, kind: 'Website.example.com', key: 'default/a', message: 'old' } },
      },
      { informers: [{ kind: 'example.com/v1/Website', objects: 2 }], totals: { calls: 3, errors: 2, lastError: { at: 9, kind: 'Website', key: 'default/b', message: 'quota exceeded' } } },
    ],
  });
  assert.equal(summaryLine(summary), 'objects: Website 2, Deployment 2 · handler calls 13 · errors 3');
  assert.equal(summary.lastError, 'Website default/b: quota exceeded');
});
