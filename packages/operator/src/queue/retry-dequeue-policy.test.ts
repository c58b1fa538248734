import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceAction } from '../handlers/actions.js';
import { OpinionatedRetryDequeuePolicy } from './retry-dequeue-policy.js';
import { widget } from '../testing/fake-informer.js';

const gen = (generation: number) => widget('w', { generation, rv: String(generation * 10) });
const err = new Error('failed');

describe('OpinionatedRetryDequeuePolicy', () => {
  // [rule, new action, new generation, retry action, retry generation, drop?]
  const table: [string, ResourceAction, number, ResourceAction, number, boolean][] = [
    ['1. a new DELETE drops a pending CREATE retry', 'DELETE', 1, 'CREATE', 1, true],
    ['1. a new DELETE drops a pending UPDATE retry of the same generation', 'DELETE', 2, 'UPDATE', 2, true],
    ['2. a new UPDATE keeps a pending CREATE retry (actions differ)', 'UPDATE', 2, 'CREATE', 1, false],
    ['2. a new CREATE keeps a pending DELETE retry (actions differ)', 'CREATE', 1, 'DELETE', 1, false],
    ['3. a new UPDATE of the same generation (resync, status echo) keeps the UPDATE retry', 'UPDATE', 3, 'UPDATE', 3, false],
    ['4. a new UPDATE of another generation (spec change) drops the UPDATE retry', 'UPDATE', 4, 'UPDATE', 3, true],
    ['4. a new CREATE of another generation drops the CREATE retry', 'CREATE', 1, 'CREATE', 5, true],
  ];
  for (const [name, newAction, newGen, retryAction, retryGen, drop] of table) {
    test(name, () => {
      assert.equal(OpinionatedRetryDequeuePolicy(newAction, gen(newGen), retryAction, gen(retryGen), err), drop);
    });
  }

  test('a missing generation counts as 0', () => {
    const a = widget('w');
    const b = widget('w');
    delete a.metadata.generation;
    b.metadata.generation = 0;
    assert.equal(OpinionatedRetryDequeuePolicy('UPDATE', a, 'UPDATE', b, err), false);
  });
});
