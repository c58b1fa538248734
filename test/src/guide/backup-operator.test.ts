// The Backup operator's tests: a real API server, the operator running as in production, faults by hand.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMapKind, findCondition } from '@kubeloop/resource';
import { exponentialBackoffRetryPolicy, noopLogger } from '@kubeloop/operator';
import { eventually, runController, startTestEnv } from '@kubeloop/apiserver/testing';
import type { StopController, TestEnv } from '@kubeloop/apiserver/testing';
import { BackupCrd, BackupKind, createBackupOperator } from './backup-operator.js';

let env: TestEnv;
let stopOperator: StopController;

before(async () => {
  env = await startTestEnv({ crds: [BackupCrd], namespaces: ['shop'] });
  // Fast retries: a failed reconcile is retried after 50, 100, 200... ms instead of 5 s.
  const operator = createBackupOperator({ transport: env.transport, retryPolicy: exponentialBackoffRetryPolicy(50, 8), logger: noopLogger });
  stopOperator = runController(operator);
});

after(async () => {
  await stopOperator(); // rejects if the operator failed
  await env.stop();
});

test('a new Backup gets its manifest, owned by it, and a Ready condition', async () => {
  const backups = env.client(BackupKind);
  const created = await backups.create({ apiVersion: 'backup.example.com/v1', kind: 'Backup', metadata: { name: 'nightly', namespace: 'shop' }, spec: { source: 'pvc/data' } });

  const manifest = await eventually(() => env.client(ConfigMapKind).get({ namespace: 'shop', name: 'nightly-manifest' }));
  assert.deepEqual(manifest.data, { source: 'pvc/data' });
  assert.equal(manifest.metadata.ownerReferences?.[0]?.uid, created.metadata.uid);

  await eventually(async () => {
    const ready = findCondition((await backups.get({ namespace: 'shop', name: 'nightly' })).status?.conditions, 'Ready');
    assert.equal(ready?.status, 'True');
    assert.equal(ready?.observedGeneration, created.metadata.generation);
  });
});

test('it converges through failed writes and dropped watches', async () => {
  const backups = env.client(BackupKind);
  // The next two status writes fail with 503: the reconcile is retried until one succeeds.
  env.faults.failNext({ verb: 'patch', resource: 'backups', status: 503, count: 2 });
  await backups.create({ apiVersion: 'backup.example.com/v1', kind: 'Backup', metadata: { name: 'weekly', namespace: 'shop' }, spec: { source: 'pvc/logs' } });
  await eventually(async () => {
    const weekly = await backups.get({ namespace: 'shop', name: 'weekly' });
    assert.equal(findCondition(weekly.status?.conditions, 'Ready')?.status, 'True');
  });

  // Every watch is cut: the informer resumes and sees the change made meanwhile.
  env.faults.dropWatches();
  await backups.patch({ namespace: 'shop', name: 'weekly' }, { merge: { spec: { source: 'pvc/archive' } } });
  await eventually(async () => {
    const manifest = await env.client(ConfigMapKind).get({ namespace: 'shop', name: 'weekly-manifest' });
    assert.equal(manifest.data?.source, 'pvc/archive');
  });
});
