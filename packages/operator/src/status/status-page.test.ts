import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../clock.js';
import { InformerController } from '../controller/informer-controller.js';
import { Operator } from '../controller/operator.js';
import { noopLogger } from '../observability/logger.js';
import { OperatorServer } from '../runtime/operator-server.js';
import { runOperator } from '../runtime/graceful-shutdown.js';
import { CachingInformer, waitFor, widget } from '../testing/fake-informer.js';
import type { OperatorStatus } from './controller-status.js';

const HOSTILE = `<script>alert("x")</script> & 'quotes'`;

/** An operator whose reconciler fails for `bad` with a message full of HTML, run by runOperator with a server on 127.0.0.1. */
async function startOperator(statusPage?: boolean): Promise<{ server: OperatorServer; informer: CachingInformer; controller: InformerController; stop(): Promise<void> }> {
  const clock = new VirtualClock();
  const informer = new CachingInformer();
  const controller = new InformerController({ clock, logger: noopLogger, errorHandler: () => undefined, retryPolicy: () => [true, 5_000], name: 'widgets' });
  controller.addInformer(informer, 'Widget');
  controller.addReconciler({ reconcile: async (_ctx, r) => (r.object.metadata.name === 'bad' ? Promise.reject(new Error(HOSTILE)) : {}) }, 'Widget');
  const operator = new Operator();
  operator.addController(controller);
  const server = new OperatorServer({ host: '127.0.0.1', port: 0, collectDefaultMetrics: false, statusPage });
  await server.start();
  const abort = new AbortController();
  const done = runOperator({ operator, server, signal: abort.signal, logger: noopLogger });
  await waitFor(() => operator.hasSynced());
  return {
    server,
    informer,
    controller,
    stop: async () => {
      abort.abort();
      await done;
      await server.stop();
    },
  };
}

test("GET /status shows each object's recent handler calls, every value escaped", async () => {
  const op = await startOperator();
  try {
    op.informer.add(widget('good'));
    op.informer.add(widget('bad'));
    await op.controller.whenIdle();
    const res = await fetch(`${op.server.url}/status?refresh=2`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/, 'no script runs, no asset loads');
    const html = await res.text();
    assert.doesNotMatch(html, /<script/i, 'the error message is not markup');
    assert.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;'), 'the message is shown escaped');
    assert.match(html, /<meta http-equiv="refresh" content="2">/);
    assert.match(html, /Controller widgets <span class="ok">running<\/span>/);
    const badRow = html.split('\n').find((line) => line.startsWith('<tr class="call" data-object="Widget/default/bad"'));
    assert.ok(badRow !== undefined, 'a call row of the failing object');
    assert.match(badRow, /<td>reconciler<\/td><td>Created<\/td><td>0<\/td><td class="bad">error<\/td>/);
    assert.match(badRow, /retry in 5\.00 s/);
    assert.match(html, /<tr class="object" data-object="Widget\/default\/good"><th colspan="8">Widget default\/good — last call: <span class="ok">ok<\/span>/);
    assert.match(html, /<td>Widget<\/td><td>primary<\/td><td class="ok">yes<\/td><td>2<\/td>/, 'the informer: synced, 2 objects');

    const filtered = await (await fetch(`${op.server.url}/status?object=good`)).text();
    assert.ok(filtered.includes('data-object="Widget/default/good"') && !filtered.includes('data-object="Widget/default/bad"'), '?object= filters');

    const json = (await (await fetch(`${op.server.url}/status.json`)).json()) as OperatorStatus;
    assert.equal(json.controllers[0]?.totals.lastError?.message, HOSTILE);
    assert.equal(json.controllers[0]?.queue.pendingRetries, 1);
  } finally {
    await op.stop();
  }
});

test('statusPage: false serves no /status', async () => {
  const op = await startOperator(false);
  try {
    assert.equal((await fetch(`${op.server.url}/status`)).status, 404);
    assert.equal((await fetch(`${op.server.url}/status.json`)).status, 404);
    assert.equal((await fetch(`${op.server.url}/healthz`)).status, 200);
  } finally {
    await op.stop();
  }
});
