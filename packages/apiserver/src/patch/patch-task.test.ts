import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApplyConflictError, managedFieldsAfterUpdate } from './managed-fields.js';
import { PatchError } from './patch-error.js';
import { applyJsonPatch, maxJsonPatchOperations } from './json-patch.js';
import { computePatch, computeUpdateFields, patchTaskResult } from './patch-task.js';
import type { PatchTask } from './patch-task.js';
import { applyServerSideApply } from './server-side-apply.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { strategyFor } from './patch-strategies.js';
import { runOffLoopTask, updateFieldsOf } from '../worker/off-loop-task.js';

const now = '2026-11-27T00:00:00.000Z';
const deployment = (image: string, replicas?: number): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: { ...(replicas !== undefined && { replicas }), template: { spec: { containers: [{ name: 'a', image }, { name: 'b', image }] } } },
});

const task = (format: PatchTask['format'], existing: Record<string, unknown> | undefined, patch: unknown, fieldManager = 'mgr', force = false): PatchTask => ({
  format,
  existingJson: existing === undefined ? undefined : JSON.stringify(existing),
  apiVersion: 'apps/v1',
  patchJson: JSON.stringify(patch),
  fieldManager,
  force,
  subresource: undefined,
  now,
});

describe('patch tasks (what the worker thread computes)', () => {
  test('an apply and a strategic merge patch give what the engines give in-thread', async () => {
    const applied = applyServerSideApply(undefined, deployment('nginx:1', 2), 'mgr', { now: new Date(now) });
    assert.deepEqual(await patchTaskResult(computePatch(task('apply', undefined, deployment('nginx:1', 2)))), applied);
    const reapplied = applyServerSideApply(applied, deployment('nginx:2'), 'mgr', { now: new Date(now) });
    assert.deepEqual(await patchTaskResult(computePatch(task('apply', applied, deployment('nginx:2')))), reapplied);
    const smp = { spec: { template: { spec: { containers: [{ name: 'b', image: 'x' }] } } } };
    assert.deepEqual(await patchTaskResult(computePatch(task('strategic', applied, smp))), applyStrategicMergePatch(applied, smp));
  });

  test('a JSON patch gives what the engine gives in-thread, and its limits come back as its typed errors', async () => {
    const stored = deployment('nginx:1', 3);
    const ops = [{ op: 'move', from: '/spec/replicas', path: '/spec/minReadySeconds' }, { op: 'add', path: '/metadata/labels', value: { a: 'b' } }];
    assert.deepEqual(await patchTaskResult(computePatch(task('json', stored, ops))), applyJsonPatch(stored, ops));
    const tooMany = Array.from({ length: maxJsonPatchOperations + 1 }, () => ({ op: 'test', path: '/kind', value: 'Deployment' }));
    await assert.rejects(() => patchTaskResult(computePatch(task('json', stored, tooMany))), (err: unknown) => err instanceof PatchError && err.status === 413);
  });

  test('the stored object is patched at the request apiVersion', async () => {
    const stored = { ...deployment('nginx:1'), apiVersion: 'apps/v1beta2' };
    const result = await patchTaskResult(computePatch(task('merge', stored, { metadata: { labels: { a: 'b' } } })));
    assert.equal(result['apiVersion'], 'apps/v1');
  });

  test('an apply conflict and a patch error come back as the typed errors the engines throw', async () => {
    const owned = applyServerSideApply(undefined, deployment('nginx:1', 2), 'owner', { now: new Date(now) });
    const conflictReply = computePatch(task('apply', owned, deployment('nginx:1', 5), 'other'));
    assert.equal(conflictReply.ok, false);
    await assert.rejects(
      () => patchTaskResult(conflictReply),
      (err: unknown) => err instanceof ApplyConflictError && err.conflicts.length === 1 && err.conflicts[0]?.field === '.spec.replicas' && err.conflicts[0].manager === '"owner"',
    );
    const badReply = computePatch(task('strategic', owned, { $patch: 'delete' }));
    await assert.rejects(
      () => patchTaskResult(badReply),
      (err: unknown) => err instanceof PatchError && err.status === 400 && /cannot delete the whole object/.test(err.message),
    );
    // Forced, the same apply takes the field over.
    assert.equal(((await patchTaskResult(computePatch(task('apply', owned, deployment('nginx:1', 5), 'other', true)))).spec as { replicas: number }).replicas, 5);
  });

  test("an Update's managedFields are those managedFieldsAfterUpdate gives, through the task's JSON both ways", async () => {
    const old = applyServerSideApply(undefined, deployment('nginx:1', 2), 'owner', { now: new Date(now) });
    const next = applyStrategicMergePatch(old, { spec: { replicas: 3 } });
    const expected = managedFieldsAfterUpdate(old, next, { manager: 'kubectl', apiVersion: 'apps/v1', subresource: undefined, now: new Date(now), strategy: strategyFor('apps/v1', 'Deployment') });
    const update = { oldJson: JSON.stringify(old), nextJson: JSON.stringify(next), manager: 'kubectl', apiVersion: 'apps/v1', subresource: undefined, now };
    assert.deepEqual(computeUpdateFields(update), expected);
    assert.deepEqual(await updateFieldsOf(runOffLoopTask({ kind: 'update-fields', update })), expected);
    assert.ok(expected?.some((e) => e.manager === 'kubectl'), 'the test changes something the Update owns');
  });
});
