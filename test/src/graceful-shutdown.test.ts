import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client, LeaseKind } from '@kubeloop/resource';
import { DemoCluster } from './support/demo-cluster.js';
import { readRecord, waitForRecord } from './support/reconcile-record.js';
import { waitFor } from './support/wait-for.js';

const LEASE = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 };

describe('graceful shutdown of the demo operator', () => {
  let cluster: DemoCluster;

  before(async () => {
    cluster = await DemoCluster.start('shutdown');
  });

  after(() => cluster.stop());

  test('SIGTERM lets the in-flight reconcile finish, releases the lease and exits 0', { timeout: 60_000 }, async () => {
    const record = join(cluster.dir, 'record-graceful.jsonl');
    const demo = cluster.operator({ identity: 'graceful', workDelayMs: 1500, reconcileLog: record, lease: LEASE, leaseName: 'graceful' });
    await demo.line(/^leader: graceful \(this process\)/, 20_000);

    await cluster.createPlaylists(['in-flight']);
    // The reconcile has started and takes 1.5 s: stop the process in the middle of it.
    await waitForRecord(record, (lines) => lines.some((l) => l.phase === 'start' && l.key === 'default/in-flight'), { timeoutMs: 20_000, what: 'the reconcile to start' });
    const sigtermAt = Date.now();
    demo.child.kill('SIGTERM');
    const exit = await demo.waitForExit(30_000);
    assert.deepEqual(exit, { code: 0, signal: null }, demo.transcript());

    const lines = await readRecord(record);
    const firstStart = lines.find((l) => l.phase === 'start' && l.key === 'default/in-flight')!;
    const end = lines.find((l) => l.phase === 'end' && l.key === 'default/in-flight' && l.t >= firstStart.t);
    assert.ok(end, `the in-flight reconcile finished:\n${JSON.stringify(lines)}\n${demo.transcript()}`);
    assert.ok(end.t >= sigtermAt, 'it finished after the signal, not before');
    assert.equal(lines.filter((l) => l.phase === 'start').length, lines.filter((l) => l.phase === 'end').length, 'every started reconcile ended');

    const leases = new Client(LeaseKind, cluster.transport);
    const lease = await leases.get({ namespace: 'default', name: 'graceful' });
    assert.equal(lease.spec?.holderIdentity ?? '', '', 'the lease was released');
    assert.equal(lease.spec?.leaseDurationSeconds, 1);
  });

  test('a second signal forces the exit while a reconcile is still running', { timeout: 60_000 }, async () => {
    const record = join(cluster.dir, 'record-forced.jsonl');
    const demo = cluster.operator({ identity: 'forced', workDelayMs: 20_000, reconcileLog: record, lease: LEASE, leaseName: 'forced' });
    await demo.line(/^leader: forced \(this process\)/, 20_000);
    await cluster.createPlaylists(['slow']);
    await waitForRecord(record, (lines) => lines.some((l) => l.phase === 'start'), { timeoutMs: 20_000, what: 'a reconcile to start' });
    demo.child.kill('SIGTERM');
    await waitFor(() => demo.stderr.some((l) => /received SIGTERM/.test(l)) || demo.stdout.some((l) => /received SIGTERM/.test(l)), {
      timeoutMs: 10_000,
      what: 'the first signal to be seen',
    });
    const secondAt = Date.now();
    demo.child.kill('SIGTERM');
    const exit = await demo.waitForExit(10_000);
    assert.deepEqual(exit, { code: 130, signal: null }, demo.transcript());
    assert.ok(Date.now() - secondAt < 5_000, 'the forced exit does not wait for the 20 s reconcile');
  });
});
