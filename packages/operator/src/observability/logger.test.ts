import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatLogLine, withAttributes } from './logger.js';
import type { LogAttributes, Logger } from './logger.js';

const at = new Date('2026-01-02T03:04:05.000Z');

describe('formatLogLine', () => {
  test('leaves attributes whose value is undefined out of the line', () => {
    assert.equal(
      formatLogLine('ERROR', 'reconcile failed', { kind: 'Playlist', phase: undefined, attempt: 0, retryAfterMs: undefined }, at),
      '2026-01-02T03:04:05.000Z ERROR reconcile failed kind=Playlist attempt=0',
    );
  });

  test('keeps null, false, 0 and empty strings, and writes errors by their message', () => {
    assert.equal(formatLogLine('INFO', 'm', { a: null, b: false, c: 0, d: '', error: new Error('boom') }, at), '2026-01-02T03:04:05.000Z INFO m a=null b=false c=0 d= error=boom');
  });
});

describe('withAttributes', () => {
  test('adds the bound attributes to every level; a call’s own attributes win', () => {
    const lines: [string, string, LogAttributes | undefined][] = [];
    const record = (level: string) => (message: string, attributes?: LogAttributes) => void lines.push([level, message, attributes]);
    const base: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
    const bound = withAttributes(base, { kind: 'Playlist', object: 'default/p1' });
    bound.debug('d');
    bound.info('i', { step: 1 });
    bound.warn('w', { object: 'other' });
    bound.error('e');
    assert.deepEqual(lines, [
      ['debug', 'd', { kind: 'Playlist', object: 'default/p1' }],
      ['info', 'i', { kind: 'Playlist', object: 'default/p1', step: 1 }],
      ['warn', 'w', { kind: 'Playlist', object: 'other' }],
      ['error', 'e', { kind: 'Playlist', object: 'default/p1' }],
    ]);
  });
});
