import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { createdAtPrinter, customResourcePrinter } from './table-printer.js';

const now = Date.parse('2024-05-01T12:00:00Z');

function widget(spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', creationTimestamp: '2024-05-01T11:57:00Z' }, spec, ...(status ? { status } : {}) };
}

describe('customResourcePrinter', () => {
  test('converts the first selected value to the column type, and anything else to an empty cell', () => {
    const printer = customResourcePrinter([
      { name: 'Int', type: 'integer', jsonPath: '.spec.n' },
      { name: 'Num', type: 'number', jsonPath: '.spec.n' },
      { name: 'Str', type: 'string', jsonPath: '.spec.n' },
      { name: 'Bool', type: 'boolean', jsonPath: '.spec.flag' },
      { name: 'Obj', type: 'string', jsonPath: '.spec.nested' },
      { name: 'First', type: 'string', jsonPath: '.spec.list[*]' },
      { name: 'Date', type: 'date', jsonPath: '.spec.when' },
      { name: 'BadDate', type: 'date', jsonPath: '.spec.flag' },
      { name: 'IntOfString', type: 'integer', jsonPath: '.spec.text' },
      { name: 'Unsupported', type: 'string', jsonPath: '.spec.list[1:2]' },
    ]);
    const cells = printer.cells(widget({ n: 2.75, flag: true, nested: { a: [1] }, list: ['x', 'y'], when: '2024-04-29T12:00:00Z', text: '5' }), now);
    assert.deepEqual(cells, ['w1', 2, 2.75, '2.75', true, '{"a":[1]}', 'x', '2d', null, null, null]);
    assert.deepEqual(printer.cells(widget({ when: 'soon' }), now).slice(7, 8), ['<invalid>']);
  });

  test('names each column with its type, format, priority and description (the path when none is given)', () => {
    const printer = customResourcePrinter([{ name: 'Ready', type: 'string', jsonPath: '.status.ready', priority: 1, format: 'x', description: '' }]);
    assert.deepEqual(printer.columnDefinitions[1], { name: 'Ready', type: 'string', format: 'x', description: 'Custom resource definition column (in JSONPath format): .status.ready', priority: 1 });
    assert.equal(printer.columnDefinitions[0]?.format, 'name');
  });

  test('without printer columns prints NAME and AGE', () => {
    for (const printer of [customResourcePrinter(undefined), customResourcePrinter([])]) {
      assert.deepEqual(
        printer.columnDefinitions.map((c) => [c.name, c.type]),
        [
          ['Name', 'string'],
          ['Age', 'date'],
        ],
      );
      assert.deepEqual(printer.cells(widget({}), now), ['w1', '3m']);
    }
  });
});

describe('createdAtPrinter', () => {
  test('prints NAME and the creation timestamp as it is stored', () => {
    assert.deepEqual(createdAtPrinter.cells(widget({}), now), ['w1', '2024-05-01T11:57:00Z']);
    assert.deepEqual(
      createdAtPrinter.columnDefinitions.map((c) => [c.name, c.type]),
      [
        ['Name', 'string'],
        ['Created At', 'date'],
      ],
    );
  });
});
