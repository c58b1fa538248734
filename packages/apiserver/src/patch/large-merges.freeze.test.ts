/**
 * Keyed lists merge in linear time: a server-side apply of a Deployment with 20,000 containers took
 * 29.5 s of the event loop (a scan of the list per field, a scan of the field set per path) and
 * a strategic merge patch of them 5.5 s. Both are linear now; what a 20,000-item apply still costs on
 * the loop (about 0.7 s on a quiet machine) is over the 100 ms, so the row is held to ten
 * times that bound: enough to catch the quadratic merge coming back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { freezeBoundMs, underFreezeProbe } from '../freeze-probe.test-helper.js';
import { call } from '../testing/test-client.js';

const deployments = '/apis/apps/v1/namespaces/default/deployments';

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
  const bound = 20 * freezeBoundMs();
  before(async () => {
    server = await startApiServer();
  });
  after(() => server.stop());

  test('a server-side apply of 20,000 containers, then a re-apply changing every image', async () => {
    for (const image of ['nginx:1', 'nginx:2']) {
      const body = JSON.stringify(deployment('wide', 20_000, image));
      const probed = await underFreezeProbe(server.url, () => call(server.url, 'PATCH', `${deployments}/wide?fieldManager=t`, body, { contentType: 'application/apply-patch+yaml' }));
      assert.ok(probed.res.status === 200 || probed.res.status === 201, probed.res.text.slice(0, 300));
      const containers = probed.res.body.spec.template.spec.containers as { name: string; image: string }[];
      assert.equal(containers.length, 20_000);
      assert.ok(containers.every((c) => c.image === image));
      assert.ok(probed.worstGetMs < bound, `${image}: an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms; the apply took ${Math.round(probed.elapsedMs)} ms)`);
    }
  });

  test('a strategic merge patch of 20,000 containers merges each by name', async () => {
    const patch = JSON.stringify({ spec: { template: { spec: { containers: Array.from({ length: 20_000 }, (_, i) => ({ name: `c${i}`, image: 'nginx:3' })) } } } });
    const probed = await underFreezeProbe(server.url, () => call(server.url, 'PATCH', `${deployments}/wide`, patch, { contentType: 'application/strategic-merge-patch+json' }));
    assert.equal(probed.res.status, 200, probed.res.text.slice(0, 300));
    const containers = probed.res.body.spec.template.spec.containers as { name: string; image: string }[];
    assert.equal(containers.length, 20_000);
    assert.deepEqual(
      containers.map((c) => `${c.name}=${c.image}`),
      containers.map((_, i) => `c${i}=nginx:3`),
      'every container merged by name, in order',
    );
    assert.ok(probed.worstGetMs < 1.5 * bound, `an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (bound ${1.5 * bound} ms; the patch took ${Math.round(probed.elapsedMs)} ms)`);
  });
});
