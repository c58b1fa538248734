import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition, isConditionFalse, isConditionTrue, removeCondition, setCondition } from './conditions.js';
import type { Condition, ConditionHolder } from './conditions.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:05:00Z');

describe('setCondition (meta.SetStatusCondition)', () => {
  test('creates the list and appends a new type, stamped now when no time is given', () => {
    const status: ConditionHolder = {};
    assert.equal(setCondition(status, { type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting', observedGeneration: 1 }, { now: t0 }), true);
    assert.deepEqual(status.conditions, [{ type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' }]);
  });

  test('a status change moves lastTransitionTime; reason, message, observedGeneration changes do not', () => {
    const status: ConditionHolder = {};
    setCondition(status, { type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting', observedGeneration: 1 }, { now: t0 });
    assert.equal(setCondition(status, { type: 'Ready', status: 'False', reason: 'Scaling', message: '1/3', observedGeneration: 2 }, { now: t1 }), true);
    assert.deepEqual(findCondition(status.conditions, 'Ready'), { type: 'Ready', status: 'False', reason: 'Scaling', message: '1/3', observedGeneration: 2, lastTransitionTime: '2026-01-01T00:00:00Z' });
    assert.equal(setCondition(status, { type: 'Ready', status: 'True', reason: 'Scaled', message: '3/3', observedGeneration: 2 }, { now: t1 }), true);
    assert.equal(findCondition(status.conditions, 'Ready')?.lastTransitionTime, '2026-01-01T00:05:00Z');
  });

  test('setting the same values again reports no change and keeps the time', () => {
    const status: ConditionHolder = {};
    const ready = { type: 'Ready', status: 'True', reason: 'Done', message: '' } as const;
    setCondition(status, ready, { now: t0 });
    assert.equal(setCondition(status, ready, { now: t1 }), false);
    assert.equal(status.conditions?.[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
  });

  test('a given lastTransitionTime is used on a status change, and other types are left alone', () => {
    const status: ConditionHolder = { conditions: [{ type: 'Synced', status: 'True', reason: 'Ok', message: '', lastTransitionTime: '2025-12-31T00:00:00Z' }] };
    setCondition(status, { type: 'Ready', status: 'False', reason: 'Pending', message: '' }, { now: t0 });
    setCondition(status, { type: 'Ready', status: 'True', reason: 'Done', message: '', lastTransitionTime: '2026-02-02T00:00:00Z' }, { now: t1 });
    assert.deepEqual(status.conditions?.map((c) => [c.type, c.lastTransitionTime]), [
      ['Synced', '2025-12-31T00:00:00Z'],
      ['Ready', '2026-02-02T00:00:00Z'],
    ]);
  });

  test('a missing observedGeneration equals 0, as Go’s int64', () => {
    const status: ConditionHolder = { conditions: [{ type: 'Ready', status: 'True', reason: 'Done', message: '', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 0 }] };
    assert.equal(setCondition(status, { type: 'Ready', status: 'True', reason: 'Done', message: '' }), false);
  });
});

describe('findCondition, removeCondition, isConditionTrue/False', () => {
  const conditions: Condition[] = [
    { type: 'Ready', status: 'True', reason: 'Done', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'Degraded', status: 'False', reason: 'Ok', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
  ];

  test('find and the status guards read the condition of a type', () => {
    assert.equal(findCondition(conditions, 'Degraded')?.reason, 'Ok');
    assert.equal(findCondition(conditions, 'Missing'), undefined);
    assert.equal(findCondition(undefined, 'Ready'), undefined);
    assert.equal(isConditionTrue(conditions, 'Ready'), true);
    assert.equal(isConditionFalse(conditions, 'Ready'), false);
    assert.equal(isConditionFalse(conditions, 'Degraded'), true);
    assert.equal(isConditionTrue(conditions, 'Missing'), false);
    assert.equal(isConditionFalse(conditions, 'Missing'), false);
  });

  test('remove deletes the type and says whether it was there', () => {
    const status: ConditionHolder = { conditions: conditions.map((c) => ({ ...c })) };
    assert.equal(removeCondition(status, 'Ready'), true);
    assert.deepEqual(status.conditions?.map((c) => c.type), ['Degraded']);
    assert.equal(removeCondition(status, 'Ready'), false);
    assert.equal(removeCondition({}, 'Ready'), false);
  });
});
