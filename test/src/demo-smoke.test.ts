import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DemoProcess } from './support/demo-process.js';
import { TempDirs } from './support/temp-dir.js';
import { waitFor } from './support/wait-for.js';

describe('the demo', () => {
  const cleanups: (() => Promise<void>)[] = [];
  const temp = new TempDirs();
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await temp.removeAll();
  });

  test('--smoke converges every sample on the embedded API server, exports traces over OTLP and exits 0', { timeout: 120_000 }, async () => {
    // A stand-in OTLP/HTTP collector: records the paths and bodies it receives.
    const received: { path: string; body: string }[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => collector.close(() => resolve())));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

    const workDir = await temp.make('demo-smoke');
    const demo = new DemoProcess(['--smoke', '--timeout', '60', '--work-dir', workDir], { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    cleanups.push(() => demo.dispose());

    const exit = await demo.waitForExit(90_000);
    const transcript = demo.transcript();
    assert.deepEqual(exit, { code: 0, signal: null }, transcript);

    const out = demo.stdout.join('\n');
    assert.match(out, /API server +http:\/\/127\.0\.0\.1:\d+ \(embedded/, transcript);
    assert.match(out, new RegExp(`export KUBECONFIG=${workDir}/kubeconfig`), transcript);
    assert.match(out, /metrics +http:\/\/127\.0\.0\.1:\d+\/metrics/, transcript);
    assert.match(out, /healthz .*readyz/, transcript);
    assert.match(out, /tracing +OTLP\/HTTP to http:\/\/127\.0\.0\.1/, transcript);
    for (const name of ['morning-standup', 'incident-review', 'release-day', 'wallboard']) {
      assert.match(out, new RegExp(`✓ default/${name} +Ready`), `${name} became Ready\n${transcript}`);
    }
    assert.match(out, /✓ default\/release-day +Ready +generation 2/, transcript);
    assert.match(out, /deleted default\/wallboard: finalizer operator\.v1\.Playlist\.playlist\.kubeloop\.dev keeps it/, transcript);
    assert.match(out, /✓ default\/wallboard +gone +catalogue entry withdrawn/, transcript);
    assert.match(out, /smoke: every sample converged/, transcript);
    assert.match(out, /stopped \(leader election: stopped\); exit code 0/, transcript);

    // The external side effect exists for the playlists that remain, and not for the deleted one.
    assert.deepEqual((await readdir(join(workDir, 'catalogue'))).sort(), [
      'default.incident-review.json',
      'default.morning-standup.json',
      'default.release-day.json',
    ]);

    // Spans reached the collector before the process exited.
    const traces = received.filter((r) => r.path === '/v1/traces');
    assert.ok(traces.length > 0, `no POST /v1/traces among ${JSON.stringify(received.map((r) => r.path))}`);
    assert.match(traces.map((t) => t.body).join(''), /controller-event-reconcile|controller-event-add/);
  });

  test('--smoke fails with the reason when the samples do not converge in time', { timeout: 60_000 }, async () => {
    const workDir = await temp.make('demo-slow');
    // Every reconcile takes 3 s and the smoke run may take 1 s.
    const demo = new DemoProcess(['--smoke', '--timeout', '1', '--work-delay-ms', '3000', '--work-dir', workDir]);
    cleanups.push(() => demo.dispose());
    const exit = await demo.waitForExit(45_000);
    assert.deepEqual(exit, { code: 1, signal: null }, demo.transcript());
    assert.match(demo.stderr.join('\n'), /demo failed: not Ready: default\/morning-standup: no Ready condition yet/, demo.transcript());
  });

  test('--replicas 3 shares the samples through a shard ring: each is handled by its slot\'s owner, which lists it in its /metrics', { timeout: 120_000 }, async () => {
    const workDir = await temp.make('demo-replicas');
    const demo = new DemoProcess(['--replicas', '3', '--identity', 'replica', '--timeout', '60', '--work-dir', workDir]);
    cleanups.push(() => demo.dispose());
    await demo.line(/^tour done in/, 90_000);
    const transcript = demo.transcript();

    // The table the demo printed once every replica had its share: `  replica-2  slots 0,4,8`.
    const ownerOf = new Map<number, string>();
    for (const line of demo.stdout) {
      const row = /^ {2}(replica-\d) +slots ([\d,]+)$/.exec(line);
      if (row) for (const slot of (row[2] as string).split(',')) ownerOf.set(Number(slot), row[1] as string);
    }
    assert.equal(ownerOf.size, 16, `every slot has an owner\n${transcript}`);
    assert.deepEqual([...new Set(ownerOf.values())].sort(), ['replica-1', 'replica-2', 'replica-3'], transcript);

    // Every reconcile line names its replica and its object's slot: the slot's owner handled it.
    const handled = new Map<string, { replica: string; slot: number }>();
    for (const line of demo.stdout) {
      const reconciled = /^\[(replica-\d)\] +· reconciled default\/([a-z-]+) \(slot (\d+)\)/.exec(line);
      if (!reconciled) continue;
      const [, replica, name, slot] = reconciled as unknown as [string, string, string, string];
      assert.equal(replica, ownerOf.get(Number(slot)), `${name} (slot ${slot}) was reconciled by ${replica}\n${transcript}`);
      handled.set(name, { replica, slot: Number(slot) });
    }
    assert.deepEqual([...handled.keys()].sort(), ['incident-review', 'morning-standup', 'release-day', 'wallboard'], transcript);

    // Each replica's /metrics lists the Playlists it holds, with their slot; together, each remaining one once.
    const metricsUrls = demo.stdout.flatMap((line) => /metrics +(http:\/\/127\.0\.0\.1:\d+\/metrics)$/.exec(line)?.[1] ?? /^\[replica-\d\] replica replica-\d of ring default\/playlist-operator: metrics (\S+)$/.exec(line)?.[1] ?? []);
    assert.equal(metricsUrls.length, 3, transcript);
    const held: string[] = [];
    let slotsOwned = 0;
    for (const url of metricsUrls) {
      const text = await (await fetch(url)).text();
      for (const m of text.matchAll(/^playlist_operator_playlists\{namespace="default",name="([a-z-]+)",slot="(\d+)"\} 1$/gm)) {
        const [, name, slot] = m as unknown as [string, string, string];
        assert.equal(Number(slot), handled.get(name)?.slot, `${name}'s slot in ${url}`);
        held.push(name);
      }
      slotsOwned += Number(/^shard_slots_owned\{ring="playlist-operator"\} (\d+)$/m.exec(text)?.[1] ?? NaN);
    }
    assert.deepEqual(held.sort(), ['incident-review', 'morning-standup', 'release-day'], transcript);
    assert.equal(slotsOwned, 16, 'the replicas own the 16 slots between them');

    // Ctrl-C: every replica leaves the ring and exits 0, then the demo.
    demo.child.kill('SIGINT');
    assert.deepEqual(await demo.waitForExit(60_000), { code: 0, signal: null }, demo.transcript());
    for (const replica of ['replica-2', 'replica-3']) assert.ok(demo.stdout.includes(`[${replica}] stopped (left the shard ring); exit code 0`), demo.transcript());
    assert.ok(demo.stdout.includes('[replica-1] stopped (left the shard ring); exit code 0'), demo.transcript());
  });

  test('the replicas --replicas started stop by themselves when the demo is killed (kill -9)', { timeout: 90_000 }, async () => {
    const workDir = await temp.make('demo-replicas-killed');
    const demo = new DemoProcess(['--replicas', '2', '--no-samples', '--identity', 'orphan', '--work-dir', workDir]);
    cleanups.push(() => demo.dispose());
    await demo.line(/^\[orphan-2\] replica orphan-2 of ring/, 60_000);
    const replicaPids = (): number[] =>
      readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== demo.child.pid)
        .filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(workDir);
          } catch {
            return false; // gone meanwhile
          }
        })
        .map(Number);
    assert.equal(replicaPids().length, 1, 'the replica runs');
    demo.child.kill('SIGKILL');
    await demo.waitForExit(10_000);
    await waitFor(() => replicaPids().length === 0, { timeoutMs: 30_000, what: 'the orphaned replica to exit' });
  });

  test('a bad option prints the usage and exits 2', { timeout: 30_000 }, async () => {
    const demo = new DemoProcess(['--no-such-option']);
    cleanups.push(() => demo.dispose());
    const exit = await demo.waitForExit(20_000);
    assert.equal(exit.code, 2, demo.transcript());
    assert.match(demo.stderr.join('\n'), /Usage: npm run demo/);
  });
});
