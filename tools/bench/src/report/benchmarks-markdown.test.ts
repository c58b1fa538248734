import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HAND_WRITTEN_MARKER, handWrittenPart } from './benchmarks-markdown.js';

describe('the hand-written part of docs/benchmarks.md', () => {
  test('is everything from the marker on, so a rerun keeps it word for word', () => {
    const kept = `${HAND_WRITTEN_MARKER}\n\n## Retry scheduler\n\nA decision.\n`;
    assert.equal(handWrittenPart(`# Benchmarks\n\n| generated |\n\n${kept}`), kept);
  });

  test('is empty on a page without the marker', () => {
    assert.equal(handWrittenPart('# Benchmarks\n\n| generated |\n'), '');
  });
});
