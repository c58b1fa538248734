import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyServerSideApply, fieldsV1Of } from './server-side-apply.js';
import { PatchError } from './patch-error.js';

type Doc = Record<string, unknown>;
const now = new Date('2024-05-01T10:20:30.456Z');

const applied = (): Doc => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'default', labels: { app: 'demo' } },
  spec: { replicas: 2, ports: [80] },
});

function managedFields(doc: Doc): Doc[] {
  return (doc['metadata'] as { managedFields: Doc[] }).managedFields;
}

describe('applyServerSideApply', () => {
  test('creates the object from the configuration when none exists, with one Apply entry', () => {
    const out = applyServerSideApply(undefined, applied(), 'kubectl', { now });
    assert.deepEqual(out['spec'], { replicas: 2, ports: [80] });
    assert.deepEqual(managedFields(out), [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'example.com/v1',
        time: '2024-05-01T10:20:30Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:replicas': {}, 'f:ports': {} } },
      },
    ]);
  });

  test('merges into an existing object: maps merge, lists are replaced, other fields stay', () => {
    const existing: Doc = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'default', uid: 'u1', resourceVersion: '5', labels: { team: 'x' } },
      spec: { replicas: 1, ports: [1, 2, 3], paused: true },
      status: { ready: true },
    };
    const out = applyServerSideApply(existing, applied(), 'kubectl', { now });
    assert.deepEqual(out['spec'], { replicas: 2, ports: [80], paused: true });
    assert.deepEqual(out['status'], { ready: true });
    const m = out['metadata'] as Doc;
    assert.deepEqual(m['labels'], { team: 'x', app: 'demo' });
    assert.equal(m['uid'], 'u1');
    assert.equal(m['resourceVersion'], '5');
  });

  test('keeps finalizers and owner references other managers added', () => {
    const existing: Doc = {
      ...applied(),
      metadata: { name: 'w1', finalizers: ['controller/x'], ownerReferences: [{ uid: 'a', name: 'a', kind: 'K', apiVersion: 'v1' }] },
    };
    const config = { ...applied(), metadata: { name: 'w1', finalizers: ['mine'], ownerReferences: [{ uid: 'b', name: 'b', kind: 'K', apiVersion: 'v1' }] } };
    const m = applyServerSideApply(existing, config, 'me', { now })['metadata'] as Doc;
    assert.deepEqual(m['finalizers'], ['controller/x', 'mine']);
    assert.deepEqual((m['ownerReferences'] as Doc[]).map((r) => r['uid']), ['a', 'b']);
  });

  test('replaces the entry of the same manager and keeps the entries of others', () => {
    const first = applyServerSideApply(undefined, applied(), 'a', { now });
    const second = applyServerSideApply(first, applied(), 'b', { now });
    // b shares a's fields (same values); a now changes replicas, which b owns too: forced.
    const third = applyServerSideApply(second, { ...applied(), spec: { replicas: 3 } }, 'a', { now: new Date('2024-05-02T00:00:00Z'), force: true });
    const entries = managedFields(third);
    assert.deepEqual(entries.map((e) => e['manager']), ['b', 'a']);
    assert.equal(entries[1]!['time'], '2024-05-02T00:00:00Z');
    assert.deepEqual(entries[1]!['fieldsV1'], { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:replicas': {} } });
    assert.deepEqual(entries[0]!['fieldsV1'], { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:ports': {} } }, 'b lost replicas to the forced apply');
    assert.deepEqual(third['spec'], { replicas: 3, ports: [80] }, "ports stay: b still owns them");
  });

  test('ignores managedFields sent in the configuration', () => {
    const config = { ...applied(), metadata: { name: 'w1', managedFields: [{ manager: 'forged' }] } };
    assert.deepEqual(managedFields(applyServerSideApply(undefined, config, 'kubectl', { now })).map((e) => e['manager']), ['kubectl']);
  });

  test('does not mutate its inputs', () => {
    const existing = applyServerSideApply(undefined, applied(), 'a', { now });
    const config = applied();
    const before = [structuredClone(existing), structuredClone(config)];
    applyServerSideApply(existing, { ...config, spec: { replicas: 9 } }, 'b', { now, force: true });
    assert.deepEqual([existing, config], before);
  });

  test('rejects an empty field manager with 400', () => {
    assert.throws(() => applyServerSideApply(undefined, applied(), ''), (err: unknown) => err instanceof PatchError && err.status === 400);
  });

  test('leaves server-owned metadata out of FieldsV1', () => {
    assert.deepEqual(fieldsV1Of({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', uid: 'u', annotations: { a: 'b' } }, data: { k: 'v' } }), {
      'f:metadata': { 'f:annotations': { 'f:a': {} } },
      'f:data': { 'f:k': {} },
    });
  });
});
