/**
 * The README's controller as its own process, against an API server in another process, through an
 * outage longer than the informer's backoff cap: it must keep running (issue 21: it used to exit with
 * code 13 some 20 ms after the server went down), say so in its logs, see the writes made after the
 * server came back, and exit 0 on SIGTERM.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpTransport, defineKind, ensureCrd } from '@kubeloop/resource';
import { Client } from '@kubeloop/resource';
import { testCrd } from '../support/crd.js';
import { NodeProcess } from '../support/node-process.js';
import { ServerProcess } from '../support/server-process.js';
import { TempDirs } from '../support/temp-dir.js';

const README_OPERATOR = fileURLToPath(new URL('./readme-operator-main.js', import.meta.url));
const WidgetKind = defineKind<{ size: number }>({ group: 'example.com', version: 'v1', kind: 'Widget' });
/** Longer than the child's 1 s backoff cap, several attempts long. */
const OUTAGE_MS = 4000;

describe('the README operator as its own process through an API server outage', () => {
  const temp = new TempDirs();
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await temp.removeAll();
  });

  test('keeps running while the server is down (logging the outage), sees the writes made after it came back, exits 0 on SIGTERM', { timeout: 90_000 }, async () => {
    const dir = await temp.make('readme-outage');
    const kubeconfig = join(dir, 'kubeconfig');
    const server = await ServerProcess.start({ dataDir: join(dir, 'data'), kubeconfigPath: kubeconfig });
    cleanups.push(() => server.stop());
    const transport = new HttpTransport({ server: server.url });
    cleanups.push(async () => transport.close());
    await ensureCrd(transport, testCrd({ group: 'example.com', kind: 'Widget', spec: { size: { type: 'integer' } } }));
    const widgets = new Client(WidgetKind, transport);
    const widget = (name: string, size: number) => ({ apiVersion: WidgetKind.apiVersion, kind: WidgetKind.kind, metadata: { name, namespace: 'default' }, spec: { size } });

    const operator = new NodeProcess(README_OPERATOR, [], { KUBECONFIG: kubeconfig });
    cleanups.push(() => operator.dispose());
    await widgets.create(widget('before', 1));
    await operator.line(/^Created before 1$/, 30_000);

    await server.crash();
    const downAt = Date.now();
    await operator.line(/WARN cannot reach the API server for \d+\.\d s \(\d+ attempts\); still retrying .*lastError=/, 15_000);
    // Stay down a while longer than the cap: several more refused attempts, the process still there.
    await sleep(Math.max(0, OUTAGE_MS - (Date.now() - downAt)));
    assert.ok(operator.running, `the operator exited during the outage (${JSON.stringify(operator.exit)})\n${operator.transcript()}`);

    await server.restart();
    await operator.line(/INFO watch resumed after \d+\.\d s, \d+ attempts?/, 15_000);
    await widgets.create(widget('after', 2));
    await widgets.patch({ namespace: 'default', name: 'before' }, { merge: { spec: { size: 5 } } });
    await operator.line(/^Created after 2$/, 15_000);
    await operator.line(/^Updated before 5$/, 15_000);

    const exit = await operator.stop('SIGTERM', 15_000);
    assert.deepEqual(exit, { code: 0, signal: null }, operator.transcript());
    assert.equal(operator.count(/^operator stopped$/), 1, operator.transcript());
    assert.deepEqual(await server.stop(), [], 'the server process never exited by itself');
  });
});
