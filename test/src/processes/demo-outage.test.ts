/**
 * The demo operator as its own process, against an API server in another process, through the same
 * kind of outage as the README operator: it keeps running (leader election keeps the lease: the outage
 * is shorter than its renew deadline), converges on what is written after the server came back, and
 * exits 0 on SIGTERM. The demo serves /metrics and the probes, and that listening socket alone holds
 * its process: this scenario guards the demo's recovery, and did not fail with issue 21's bug (the
 * README operator and the leader-election replicas, which serve nothing, did).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { Client, HttpTransport } from '@kubeloop/resource';
import { DemoProcess, PlaylistKind, demoOperatorArgs } from '../support/demo-process.js';
import type { Playlist } from '../support/demo-process.js';
import { ServerProcess } from '../support/server-process.js';
import { TempDirs } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const LEASE = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 1000 };
/** Long enough for several failed attempts of the informers (0.8, 1.6 s...), shorter than the renew deadline. */
const OUTAGE_MS = 4000;

describe('the demo operator as its own process through an API server outage', () => {
  const temp = new TempDirs();
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await temp.removeAll();
  });

  test('keeps running while the server is down, converges on the Playlists written after it came back, exits 0 on SIGTERM', { timeout: 120_000 }, async () => {
    const dir = await temp.make('demo-outage');
    const kubeconfig = join(dir, 'kubeconfig');
    const server = await ServerProcess.start({ dataDir: join(dir, 'data'), kubeconfigPath: kubeconfig });
    cleanups.push(() => server.stop());
    const transport = new HttpTransport({ server: server.url });
    cleanups.push(async () => transport.close());
    const playlists = new Client(PlaylistKind, transport);
    const ready = async (name: string): Promise<boolean> => {
      const p = await playlists.get({ namespace: 'default', name });
      const c = p.status?.conditions?.find((x) => x.type === 'Ready');
      return c?.status === 'True' && c.observedGeneration === p.metadata.generation;
    };
    const playlist = (name: string): Playlist => ({
      apiVersion: PlaylistKind.apiVersion,
      kind: PlaylistKind.kind,
      metadata: { name, namespace: 'default' },
      spec: { title: name, interval: '30s', items: [{ type: 'dashboard_by_uid', value: name }] },
    });

    const demo = new DemoProcess(
      demoOperatorArgs({ kubeconfig, identity: 'outage', dir, workDelayMs: 0, reconcileLog: join(dir, 'reconciles.jsonl'), lease: LEASE, leaseName: 'demo-outage' }),
      { KUBECONFIG: kubeconfig },
    );
    cleanups.push(() => demo.dispose());
    await demo.line(/^leader: outage \(this process\)/, 60_000);
    await playlists.create(playlist('before'));
    await waitFor(() => ready('before'), { timeoutMs: 30_000, what: 'the first Playlist Ready' });

    await server.crash();
    await sleep(OUTAGE_MS);
    assert.equal(demo.exit, undefined, `the demo exited during the outage\n${demo.transcript()}`);
    await server.restart();

    await playlists.create(playlist('after'));
    await waitFor(() => ready('after'), { timeoutMs: 60_000, what: 'the Playlist created after the outage Ready' });
    assert.equal(demo.exit, undefined, demo.transcript());

    demo.child.kill('SIGTERM');
    assert.deepEqual(await demo.waitForExit(30_000), { code: 0, signal: null }, demo.transcript());
    assert.deepEqual(await server.stop(), [], 'the server process never exited by itself');
  });
});
