/**
 * Operator processes killed for real (SIGKILL: nothing flushed, no lease released), with the demo
 * Playlist operator (an OpinionatedReconciler whose finalizer withdraws a catalogue entry outside
 * Kubernetes) run as child processes against one API server:
 * - killed in the middle of deletes: after a restart every Playlist goes, with its catalogue entry;
 *   each delete ran at least once overall and at most once per process;
 * - the leader killed mid-reconcile: the follower takes over once the lease expired, every Playlist
 *   ends Ready; objects handled by both processes are reported.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DemoCluster } from '../support/demo-cluster.js';
import type { DemoLeaseTimings, DemoProcess } from '../support/demo-process.js';
import { readRecord } from '../support/reconcile-record.js';
import type { RecordLine } from '../support/reconcile-record.js';
import { waitFor } from '../support/wait-for.js';

const LEASE: DemoLeaseTimings = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 };

describe('reliability: operator processes killed with SIGKILL', () => {
  let cluster: DemoCluster;

  before(async () => {
    cluster = await DemoCluster.start('operator-kill');
  });

  after(() => cluster.stop());

  function operator(identity: string, record: string, workDelayMs: number, leaseName: string): DemoProcess {
    return cluster.operator({ identity, workDelayMs, reconcileLog: record, lease: LEASE, leaseName });
  }

  test('killed in the middle of deletes, the restarted operator finishes them: every Playlist and catalogue entry goes, each delete once per process', { timeout: 120_000 }, async () => {
    const record = join(cluster.dir, 'deletes.jsonl');
    const names = Array.from({ length: 12 }, (_, i) => `doomed-${i}`);
    const first = operator('deleter', record, 400, 'operator-kill-deletes');
    await first.line(/^leader: deleter \(this process\)/, 30_000);
    await cluster.createPlaylists(names);
    await waitFor(() => cluster.allReady(names), { timeoutMs: 60_000, intervalMs: 100, what: 'every Playlist Ready' });

    for (const name of names) await cluster.playlists.delete({ namespace: 'default', name });
    // Kill once some deletes are done and others are running.
    const deletedBy = (lines: RecordLine[], pid: number | undefined): RecordLine[] =>
      lines.filter((l) => l.phase === 'end' && l.action === 'Deleted' && l.outcome === 'deleted' && (pid === undefined || l.pid === pid));
    await waitFor(
      async () => {
        const lines = await readRecord(record);
        const started = lines.filter((l) => l.phase === 'start' && l.action === 'Deleted').length;
        const done = deletedBy(lines, undefined).length;
        return done >= 1 && started > done;
      },
      { timeoutMs: 30_000, intervalMs: 10, what: 'deletes in progress' },
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const firstPid = first.child.pid!;
    const doneBeforeKill = new Set(deletedBy(await readRecord(record), firstPid).map((l) => l.key));
    assert.ok(doneBeforeKill.size < names.length, 'the kill came before every delete was handled');

    // The same operator (same identity, same catalogue) starts again: it holds the lease at once.
    const second = operator('deleter', record, 400, 'operator-kill-deletes');
    const restartedAt = Date.now();
    await second.line(/^leader: deleter \(this process\)/, 30_000);
    await waitFor(async () => (await cluster.playlists.list('default')).items.every((p) => !names.includes(p.metadata.name)), {
      timeoutMs: 60_000,
      intervalMs: 100,
      what: 'every Playlist to be gone',
    });

    const goneAfterMs = Date.now() - restartedAt;
    const lines = await readRecord(record);
    const secondPid = second.child.pid!;
    let twice = 0;
    for (const name of names) {
      const key = `default/${name}`;
      const byFirst = deletedBy(lines, firstPid).filter((l) => l.key === key).length;
      const bySecond = deletedBy(lines, secondPid).filter((l) => l.key === key).length;
      assert.ok(byFirst + bySecond >= 1, `the delete of ${key} was never handled`);
      assert.ok(byFirst <= 1 && bySecond <= 1, `the delete of ${key} ran ${byFirst} times in the killed process and ${bySecond} in the restarted one`);
      if (byFirst + bySecond > 1) twice++;
    }
    const catalogue = await readdir(join(cluster.dir, 'deleter', 'catalogue')).catch(() => [] as string[]);
    assert.deepEqual(catalogue.filter((f) => f.startsWith('default.doomed-')), [], 'every catalogue entry was withdrawn');
    console.log(
      `SIGKILL during deletes: ${names.length} Playlists deleted, ${doneBeforeKill.size} deletes done before the kill, ` +
        `${names.length - doneBeforeKill.size} after the restart (all gone ${goneAfterMs} ms after it), ${twice} handled in both processes, 0 lost`,
    );
    second.child.kill('SIGTERM');
    assert.deepEqual(await second.waitForExit(30_000), { code: 0, signal: null }, second.transcript());
  });

  test('the leader killed mid-reconcile: the follower takes over once the lease expires and every Playlist ends Ready', { timeout: 120_000 }, async () => {
    const record = join(cluster.dir, 'failover.jsonl');
    const names = Array.from({ length: 16 }, (_, i) => `shared-${i}`);
    const alpha = operator('alpha', record, 200, 'operator-kill-leader');
    await alpha.line(/^leader: alpha \(this process\)/, 30_000);
    const bravo = operator('bravo', record, 200, 'operator-kill-leader');
    await bravo.line(/^leader: alpha$/, 30_000);

    await cluster.createPlaylists(names);
    await waitFor(
      async () => {
        const lines = (await readRecord(record)).filter((l) => l.identity === 'alpha');
        return lines.filter((l) => l.phase === 'end').length >= 4 && lines[lines.length - 1]?.phase === 'start';
      },
      { timeoutMs: 30_000, intervalMs: 10, what: 'alpha to be mid-reconcile' },
    );
    alpha.child.kill('SIGKILL');
    await alpha.exited;
    const killedAt = Date.now();
    await bravo.line(/^leader: bravo \(this process\)/, LEASE.leaseDurationMs * 4);
    const takeoverMs = Date.now() - killedAt;
    await waitFor(() => cluster.allReady(names), { timeoutMs: 60_000, intervalMs: 100, what: 'every Playlist Ready under the new leader' });

    const lines = await readRecord(record);
    const endedBy = (identity: string): Set<string> => new Set(lines.filter((l) => l.identity === identity && l.phase === 'end').map((l) => l.key));
    const startedBy = (identity: string): Set<string> => new Set(lines.filter((l) => l.identity === identity && l.phase === 'start').map((l) => l.key));
    const alphaDone = endedBy('alpha');
    const interrupted = [...startedBy('alpha')].filter((k) => !alphaDone.has(k));
    const handledTwice = [...startedBy('bravo')].filter((k) => alphaDone.has(k));
    // The follower may take the lease only once it expired: at most a lease duration after the last renewal, seen within a retry period.
    assert.ok(takeoverMs <= LEASE.leaseDurationMs + LEASE.retryPeriodMs + 1000, `takeover took ${takeoverMs} ms`);
    assert.ok(startedBy('bravo').size > 0 && lines.filter((l) => l.identity === 'bravo').every((l) => l.t >= killedAt), 'bravo worked only after alpha died');
    console.log(
      `leader killed: ${names.length} Playlists, takeover after ${takeoverMs} ms (lease ${LEASE.leaseDurationMs} ms), ` +
        `${interrupted.length} reconciles interrupted and redone, ${handledTwice.length} objects reconciled by both leaders (a new leader lists every object), 0 lost`,
    );
    bravo.child.kill('SIGTERM');
    assert.deepEqual(await bravo.waitForExit(30_000), { code: 0, signal: null }, bravo.transcript());
  });
});
