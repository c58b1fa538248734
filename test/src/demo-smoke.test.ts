import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DemoProcess } from './support/demo-process.js';
import { TempDirs } from './support/temp-dir.js';

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

  test('a bad option prints the usage and exits 2', { timeout: 30_000 }, async () => {
    const demo = new DemoProcess(['--no-such-option']);
    cleanups.push(() => demo.dispose());
    const exit = await demo.waitForExit(20_000);
    assert.equal(exit.code, 2, demo.transcript());
    assert.match(demo.stderr.join('\n'), /Usage: npm run demo/);
  });
});
