/**
 * Keyed lists merge in linear time: a server-side apply of a Deployment with 20,000 containers took
 * 29.5 s of the event loop (a scan of the list per field, a scan of the field set per path), an
 * apply keeping 1 of them 137 s (a splice and a new index per removed item), a strategic merge
 * patch of them 5.5 s, and its directives over 20,000 values seconds. All are linear now, and a
 * body this large (0.67 MB) is parsed and merged in the server's worker thread, its other steps in
 * turns of their own.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { underFreezeProbe } from '../freeze-probe.test-helper.js';
import { call } from '../testing/test-client.js';

const deployments = '/apis/apps/v1/namespaces/default/deployments';

/**
 * What each step of these writes holds the event loop for, on a quiet 2-core machine: parsing the
 * worker's answer, a few pieces per turn (about 8 ms); decoding, checking and storing, 10 to 20 ms
 * each. An unrelated GET waits 30 to 50 ms (it was 50 to 120 ms with each answer parsed in one
 * turn). Held to the freeze bound, which scales with the machine's load around each request.
 */
function deployment(name: string, containers: number, image: string): Record<string, unknown> {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: Array.from({ length: containers }, (_, i) => ({ name: `c${i}`, image })) } } },
  };
}

describe('large keyed lists', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer();
  });
  after(() => server.stop());

  test('a server-side apply of 20,000 containers, then a re-apply changing every image', async (t) => {
    for (const image of ['nginx:1', 'nginx:2']) {
      const body = JSON.stringify(deployment('wide', 20_000, image));
      const probed = await underFreezeProbe(server.url, () => call(server.url, 'PATCH', `${deployments}/wide?fieldManager=t`, body, { contentType: 'application/apply-patch+yaml' }));
      const bound = probed.boundMs;
      assert.ok(probed.res.status === 200 || probed.res.status === 201, probed.res.text.slice(0, 300));
      const containers = probed.res.body.spec.template.spec.containers as { name: string; image: string }[];
      assert.equal(containers.length, 20_000);
      assert.ok(containers.every((c) => c.image === image));
      t.diagnostic(`${image}: ${Math.round(probed.elapsedMs)} ms; an unrelated GET waited at most ${Math.round(probed.worstGetMs)} ms, ${Math.round(probed.worstNewConnectionGetMs)} ms on new connections (bound ${bound} ms)`);
      assert.ok(probed.worstGetMs < bound, `${image}: an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms; the apply took ${Math.round(probed.elapsedMs)} ms)`);
      // A new connection waits a turn more (its accept).
      assert.ok(probed.worstNewConnectionGetMs < 2 * bound, `a GET on a new connection waited ${Math.round(probed.worstNewConnectionGetMs)} ms (bound ${2 * bound} ms)`);
    }
  });

  test('an apply that keeps 1 of 20,000 containers removes the 19,999 others in one pass', async (t) => {
    const body = JSON.stringify(deployment('shrinks', 20_000, 'nginx:1'));
    const created = await call(server.url, 'PATCH', `${deployments}/shrinks?fieldManager=t`, body, { contentType: 'application/apply-patch+yaml' });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    // Each removed item was a search and a splice of the list, then a new index of it: 137 s in all.
    const probed = await underFreezeProbe(server.url, () =>
      call(server.url, 'PATCH', `${deployments}/shrinks?fieldManager=t`, JSON.stringify(deployment('shrinks', 1, 'nginx:1')), { contentType: 'application/apply-patch+yaml' }),
    );
    const bound = probed.boundMs;
    assert.equal(probed.res.status, 200, probed.res.text.slice(0, 300));
    assert.deepEqual(probed.res.body.spec.template.spec.containers.map((c: { name: string }) => c.name), ['c0']);
    t.diagnostic(`${Math.round(probed.elapsedMs)} ms; an unrelated GET waited at most ${Math.round(probed.worstGetMs)} ms, ${Math.round(probed.worstNewConnectionGetMs)} ms on new connections (bound ${bound} ms)`);
    assert.ok(probed.worstGetMs < bound, `an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms; the apply took ${Math.round(probed.elapsedMs)} ms)`);
    // A new connection waits a turn more (its accept).
    assert.ok(probed.worstNewConnectionGetMs < 2 * bound, `a GET on a new connection waited ${Math.round(probed.worstNewConnectionGetMs)} ms (bound ${2 * bound} ms)`);
  });

  test('strategic merge directives over 20,000 values: $deleteFromPrimitiveList and $retainKeys', async (t) => {
    const configmaps = '/api/v1/namespaces/default/configmaps';
    const finalizers = Array.from({ length: 20_000 }, (_, i) => `example.com/f${i}`);
    const data = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 'v']));
    const created = await call(server.url, 'POST', configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'directives', finalizers }, data });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    // Each was a scan of the patch's list per item of the object's: 3.4 s and 1.5 s.
    const patch = { metadata: { '$deleteFromPrimitiveList/finalizers': finalizers.slice(1) }, data: { ...data, k0: 'w', $retainKeys: Object.keys(data) } };
    const probed = await underFreezeProbe(server.url, () => call(server.url, 'PATCH', `${configmaps}/directives`, JSON.stringify(patch), { contentType: 'application/strategic-merge-patch+json' }));
    const bound = probed.boundMs;
    assert.equal(probed.res.status, 200, probed.res.text.slice(0, 300));
    assert.deepEqual(probed.res.body.metadata.finalizers, ['example.com/f0']);
    assert.equal(Object.keys(probed.res.body.data).length, 20_000);
    assert.equal(probed.res.body.data.k0, 'w');
    t.diagnostic(`${Math.round(probed.elapsedMs)} ms; an unrelated GET waited at most ${Math.round(probed.worstGetMs)} ms, ${Math.round(probed.worstNewConnectionGetMs)} ms on new connections (bound ${bound} ms)`);
    assert.ok(probed.worstGetMs < bound, `an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms; the patch took ${Math.round(probed.elapsedMs)} ms)`);
    // A new connection waits a turn more (its accept).
    assert.ok(probed.worstNewConnectionGetMs < 2 * bound, `a GET on a new connection waited ${Math.round(probed.worstNewConnectionGetMs)} ms (bound ${2 * bound} ms)`);
  });

  test('a strategic merge patch of 20,000 containers merges each by name', async (t) => {
    const patch = JSON.stringify({ spec: { template: { spec: { containers: Array.from({ length: 20_000 }, (_, i) => ({ name: `c${i}`, image: 'nginx:3' })) } } } });
    const probed = await underFreezeProbe(server.url, () => call(server.url, 'PATCH', `${deployments}/wide`, patch, { contentType: 'application/strategic-merge-patch+json' }));
    const bound = probed.boundMs;
    assert.equal(probed.res.status, 200, probed.res.text.slice(0, 300));
    const containers = probed.res.body.spec.template.spec.containers as { name: string; image: string }[];
    assert.equal(containers.length, 20_000);
    assert.deepEqual(
      containers.map((c) => `${c.name}=${c.image}`),
      containers.map((_, i) => `c${i}=nginx:3`),
      'every container merged by name, in order',
    );
    t.diagnostic(`${Math.round(probed.elapsedMs)} ms; an unrelated GET waited at most ${Math.round(probed.worstGetMs)} ms, ${Math.round(probed.worstNewConnectionGetMs)} ms on new connections (bound ${bound} ms)`);
    assert.ok(probed.worstGetMs < bound, `an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms; the patch took ${Math.round(probed.elapsedMs)} ms)`);
    // A new connection waits a turn more (its accept).
    assert.ok(probed.worstNewConnectionGetMs < 2 * bound, `a GET on a new connection waited ${Math.round(probed.worstNewConnectionGetMs)} ms (bound ${2 * bound} ms)`);
  });
});
