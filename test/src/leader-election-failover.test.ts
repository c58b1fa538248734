import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '@kubeloop/apiserver';
import { Client, HttpTransport, LeaseKind, loadKubeConfig } from '@kubeloop/resource';
import { DemoProcess, PlaylistKind, demoOperatorArgs } from './support/demo-process.js';
import { intervals, readRecord } from './support/reconcile-record.js';
import { waitFor } from './support/wait-for.js';

const LEASE = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 };

describe('leader election between two operator processes', () => {
  let server: Awaited<ReturnType<typeof startApiServer>>;
  let dir: string;
  let kubeconfig: string;
  let transport: HttpTransport;
  const processes: DemoProcess[] = [];

  before(async () => {
    server = await startApiServer();
    dir = await mkdtemp(join(tmpdir(), 'kubeloop-failover-'));
    kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig);
    transport = HttpTransport.fromKubeConfig(loadKubeConfig({ kubeconfigPath: kubeconfig }));
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.dispose()));
    transport.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function operator(identity: string, record: string): DemoProcess {
    const p = new DemoProcess(demoOperatorArgs({ kubeconfig, identity, dir, workDelayMs: 150, reconcileLog: record, lease: LEASE }));
    processes.push(p);
    return p;
  }

  test('the follower takes over after the leader is killed, and no object is ever reconciled by two leaders at once', { timeout: 120_000 }, async () => {
    const record = join(dir, 'record.jsonl');
    const a = operator('alpha', record);
    await a.line(/^leader: alpha \(this process\)/, 30_000);
    const b = operator('bravo', record);
    await b.line(/^leader: alpha$/, 30_000);

    const playlists = new Client(PlaylistKind, transport);
    const names = ['one', 'two', 'three', 'four', 'five', 'six'];
    for (const name of names) {
      await playlists.create({
        apiVersion: PlaylistKind.apiVersion,
        kind: PlaylistKind.kind,
        metadata: { name, namespace: 'default' },
        spec: { title: name, interval: '30s', items: [{ type: 'dashboard_by_uid', value: name }] },
      });
    }
    // Kill the leader while it is in the middle of a reconcile.
    await waitFor(
      async () => {
        const lines = (await readRecord(record)).filter((l) => l.identity === 'alpha');
        const last = lines[lines.length - 1];
        return lines.length >= 4 && last?.phase === 'start';
      },
      { timeoutMs: 30_000, intervalMs: 10, what: 'alpha to be mid-reconcile' },
    );
    a.child.kill('SIGKILL');
    await a.exited;
    const killedAt = Date.now();

    await b.line(/^leader: bravo \(this process\)/, LEASE.leaseDurationMs * 4);
    const tookOverAfter = Date.now() - killedAt;

    // The new leader finishes the work: every playlist Ready for its generation and holding the
    // operator's finalizer (a leader killed mid-reconcile can leave a Ready playlist whose
    // finalizer the new leader adds after: editing before that write would race it).
    const ready = async (): Promise<boolean> => {
      const list = await playlists.list('default');
      return names.every((n) => {
        const p = list.items.find((i) => i.metadata.name === n);
        const c = p?.status?.conditions?.find((x) => x.type === 'Ready');
        return c?.status === 'True' && c.observedGeneration === p?.metadata.generation && (p?.metadata.finalizers?.length ?? 0) > 0;
      });
    };
    await waitFor(ready, { timeoutMs: 30_000, intervalMs: 100, what: 'every playlist Ready under the new leader' });

    // And it keeps working: an edit is reconciled by bravo.
    const two = await playlists.get({ namespace: 'default', name: 'two' });
    await playlists.update({ ...two, spec: { ...two.spec!, items: [...two.spec!.items, { type: 'dashboard_by_tag', value: 'extra' }] } });
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

    const lease = await new Client(LeaseKind, transport).get({ namespace: 'default', name: 'playlist-operator' });
    assert.equal(lease.spec?.holderIdentity, 'bravo');
    assert.ok((lease.spec?.leaseTransitions ?? 0) >= 1);

    b.child.kill('SIGTERM');
    assert.deepEqual(await b.waitForExit(30_000), { code: 0, signal: null }, b.transcript());
  });
});
