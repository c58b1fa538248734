// The Backup operator's tests: a real API server, the operator running as in production, faults by hand
// and a seeded fault schedule.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMapKind, findCondition } from '@kubeloop/resource';
import { JitteredExponentialBackoff, createOrPatch, exponentialBackoffRetryPolicy, noopLogger } from '@kubeloop/operator';
import { eventually, faultSchedule, runController, startTestEnv } from '@kubeloop/apiserver/testing';
import type { StopController, TestEnv } from '@kubeloop/apiserver/testing';
import { BackupCrd, BackupKind, createBackupOperator } from './backup-operator.js';

let env: TestEnv;
let stopOperator: StopController;

before(async () => {
  // persistent: the objects are kept in a temporary directory, so the server can restart (a fault below).
  env = await startTestEnv({ crds: [BackupCrd], namespaces: ['shop'], persistent: true });
  // Fast retries: a failed reconcile is retried after 50, 100, 200... ms instead of 5 s, and the informer
  // reconnects after 20 ms to 0.5 s instead of 0.8 to 30 s.
  const operator = createBackupOperator({
    transport: env.transport,
    retryPolicy: exponentialBackoffRetryPolicy(50, 8),
    informerBackoff: new JitteredExponentialBackoff({ initialMs: 20, maxMs: 500 }),
    logger: noopLogger,
  });
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

test('it converges through a seeded fault schedule', async () => {
  const backups = env.client(BackupKind);
  // Twelve faults of every kind, the same twelve for a seed. Replay a failure with FAULT_SEED=<seed>.
  const schedule = faultSchedule({
    seed: Number(process.env['FAULT_SEED'] ?? 2026),
    count: 12,
    kinds: ['dropWatches', 'compact', 'failNext', 'latency', 'restart'],
    resources: ['backups', 'configmaps'],
  });
  await env.runFaultSchedule(schedule, {
    // After each fault, a write the operator must follow; choices drawn from `rng` replay with the seed.
    // A patch, not an update: the operator writes the status meanwhile, and an update would get 409.
    between: async ({ rng }) => {
      const metadata = { name: rng.pick(['hourly', 'daily', 'monthly']), namespace: 'shop' };
      await createOrPatch(backups, { apiVersion: 'backup.example.com/v1', kind: 'Backup', metadata }, (backup) => {
        backup.spec = { source: `pvc/disk-${rng.int(0, 9)}` };
      });
    },
  });
  // On timeout: a ConvergenceError with the last assertion failure, the seed and the faults.
  await env.converge(
    async () => {
      for (const backup of (await backups.list('shop')).items) {
        const manifest = await env.client(ConfigMapKind).get({ namespace: 'shop', name: `${backup.metadata.name}-manifest` });
        assert.equal(manifest.data?.source, backup.spec?.source);
        assert.equal(findCondition(backup.status?.conditions, 'Ready')?.observedGeneration, backup.metadata.generation);
      }
    },
    { timeoutMs: 20_000, what: 'a manifest and a Ready condition for every Backup' },
  );
});
