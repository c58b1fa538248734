import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client, LeaseKind } from '@kubeloop/resource';
import { DemoCluster } from './support/demo-cluster.js';
import type { DemoProcess } from './support/demo-process.js';
import { intervals, isMidReconcile, readRecord, waitForRecord } from './support/reconcile-record.js';
import { waitFor } from './support/wait-for.js';

const LEASE = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 };

describe('leader election between two operator processes', () => {
  let cluster: DemoCluster;

  before(async () => {
    cluster = await DemoCluster.start('failover');
  });

  after(() => cluster.stop());

  function operator(identity: string, record: string): DemoProcess {
    return cluster.operator({ identity, workDelayMs: 150, reconcileLog: record, lease: LEASE, leaseName: 'failover' });
  }

  test('the follower takes over after the leader is killed, and no object is ever reconciled by two leaders at once', { timeout: 120_000 }, async () => {
    const record = join(cluster.dir, 'record.jsonl');
    const a = operator('alpha', record);
    await a.line(/^leader: alpha \(this process\)/, 30_000);
    const b = operator('bravo', record);
    await b.line(/^leader: alpha$/, 30_000);

    const { playlists } = cluster;
    const names = ['one', 'two', 'three', 'four', 'five', 'six'];
    await cluster.createPlaylists(names);
    // Kill the leader while it is in the middle of a reconcile.
    await waitForRecord(record, (lines) => lines.filter((l) => l.identity === 'alpha').length >= 4 && isMidReconcile(lines, 'alpha'), {
      timeoutMs: 30_000,
      intervalMs: 10,
      what: 'alpha to be mid-reconcile',
    });
    a.child.kill('SIGKILL');
    await a.exited;
    const killedAt = Date.now();

    await b.line(/^leader: bravo \(this process\)/, LEASE.leaseDurationMs * 4);
    const tookOverAfter = Date.now() - killedAt;

    // The new leader finishes the work: every playlist Ready for its generation.
    const ready = (): Promise<boolean> => cluster.allReady(names);
    await waitFor(ready, { timeoutMs: 30_000, intervalMs: 100, what: 'every playlist Ready under the new leader' });

    // And it keeps working: an edit is reconciled by bravo.
    // A merge patch carries no resourceVersion: bravo's status writes in between cannot make it conflict.
    const two = await playlists.get({ namespace: 'default', name: 'two' });
    await playlists.patch({ namespace: 'default', name: 'two' }, { merge: { spec: { items: [...two.spec!.items, { type: 'dashboard_by_tag', value: 'extra' }] } } });
    await waitFor(ready, { timeoutMs: 30_000, intervalMs: 100, what: 'the edit to be reconciled' });

    const lines = await readRecord(record);
    const alpha = intervals(lines, 'alpha', killedAt);
    const bravo = intervals(lines, 'bravo', Date.now());
    assert.ok(alpha.size > 0 && bravo.size > 0, `both reconciled something:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`);
    // No overlap, object by object...
    for (const [key, bs] of bravo) {
      for (const [as, ae] of alpha.get(key) ?? []) {
        for (const [bs0, be] of bs) assert.ok(be < as || bs0 > ae, `${key} reconciled by alpha [${as}, ${ae}] and bravo [${bs0}, ${be}] at once`);
      }
    }
    // ...and globally: the follower never reconciled anything while the leader was alive.
    const bravoFirst = Math.min(...lines.filter((l) => l.identity === 'bravo').map((l) => l.t));
    assert.ok(bravoFirst >= killedAt, `bravo started reconciling ${killedAt - bravoFirst} ms before alpha was killed`);
    assert.ok(tookOverAfter <= LEASE.leaseDurationMs * 2, `takeover took ${tookOverAfter} ms`);

    const lease = await new Client(LeaseKind, cluster.transport).get({ namespace: 'default', name: 'failover' });
    assert.equal(lease.spec?.holderIdentity, 'bravo');
    assert.ok((lease.spec?.leaseTransitions ?? 0) >= 1);

    b.child.kill('SIGTERM');
    assert.deepEqual(await b.waitForExit(30_000), { code: 0, signal: null }, b.transcript());
  });
});
