/**
 * The operator's status page in a real browser (Debian's headless Chromium): an operator on the embedded
 * API server whose handler fails for one ConfigMap; the page, as Chromium loads and renders it, has that
 * object's row with its name, its error (as text, not markup) and the retry; the screenshot has the
 * window's size and shows the error in the page's error colour.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer } from '@kubeloop/apiserver';
import { Client, ConfigMapKind, HttpTransport } from '@kubeloop/resource';
import { InformerController, KubernetesBasedInformer, Operator, OperatorServer, noopLogger, runOperator } from '@kubeloop/operator';
import type { RunOperatorResult } from '@kubeloop/operator';
import { runHeadlessChromium } from './support/headless-chromium.js';
import { readPng } from './support/png-image.js';
import { TempDirs } from './support/temp-dir.js';
import { waitFor } from './support/wait-for.js';

const ERROR = 'quota <exceeded> for "broken" & retried';

describe('the status page in headless Chromium', { timeout: 120_000 }, () => {
  const temp = new TempDirs();
  let api: ApiServer;
  let transport: HttpTransport;
  let server: OperatorServer;
  const stop = new AbortController();
  let running: Promise<RunOperatorResult>;

  before(async () => {
    api = await startApiServer();
    transport = new HttpTransport({ server: api.url });
    const configMaps = new Client(ConfigMapKind, transport);
    const controller = new InformerController({ name: 'config-maps', logger: noopLogger, errorHandler: () => undefined, retryPolicy: () => [true, 30_000] });
    controller.addInformer(new KubernetesBasedInformer(ConfigMapKind, configMaps, 'default', { logger: noopLogger }), ConfigMapKind);
    controller.addReconciler({ reconcile: async (_ctx, r) => (r.object.metadata.name === 'broken' ? Promise.reject(new Error(ERROR)) : {}) }, ConfigMapKind);
    const operator = new Operator();
    operator.addController(controller);
    server = new OperatorServer({ host: '127.0.0.1', port: 0, collectDefaultMetrics: false });
    running = runOperator({ operator, server, signal: stop.signal, logger: noopLogger });
    await waitFor(() => server.isListening() && operator.hasSynced(), { what: 'the operator to run' });
    for (const name of ['fine', 'broken']) await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { a: '1' } });
    await waitFor(() => operator.status().controllers[0]?.totals.errors === 1, { what: 'the failing reconcile' });
  });

  after(async () => {
    stop.abort();
    await running;
    transport.close();
    await api.stop();
    await temp.removeAll();
  });

  test("the failing object's row shows its name, its error as text and the retry; the screenshot shows the error in red", async () => {
    const dir = await temp.make('chromium');
    const url = `${server.url}/status`;
    const dom = await runHeadlessChromium(['--dump-dom', url], { profileDir: join(dir, 'profile-dom'), timeoutMs: 60_000 });
    const row = dom.split('\n').find((line) => line.includes('data-object="ConfigMap/default/broken"') && line.includes('class="call"'));
    assert.ok(row !== undefined, `a call row of default/broken in:\n${dom.slice(0, 3_000)}`);
    assert.ok(row.includes('<td class="error">quota &lt;exceeded&gt; for "broken" &amp; retried</td>'), `the error as text: ${row}`);
    assert.match(row, /<td>reconciler<\/td><td>Created<\/td><td>0<\/td><td class="bad">error<\/td>/);
    assert.match(row, /<td>retry in 30\.00 s<\/td>/);
    assert.doesNotMatch(dom, /<exceeded>/, 'no element made of the message');
    assert.match(dom, /Handler calls: 2, failed: <span class="bad">1<\/span>/);

    const png = join(dir, 'status.png');
    await runHeadlessChromium([`--screenshot=${png}`, '--window-size=1200,800', url], { profileDir: join(dir, 'profile-shot'), timeoutMs: 60_000 });
    const image = readPng(await readFile(png));
    assert.deepEqual([image.width, image.height], [1200, 800]);
    let red = 0;
    let ink = 0;
    for (let y = 0; y < image.height; y += 1) {
      for (let x = 0; x < image.width; x += 1) {
        const [r, g, b] = image.pixel(x, y);
        if (r > 120 && g < 70 && b < 70) red++;
        if (r + g + b < 600) ink++;
      }
    }
    assert.ok(ink > 5_000, `the page is not blank (${ink} non-white pixels)`);
    assert.ok(red > 200, `the error and the failed count are drawn in red (${red} red pixels)`);
  });
});
