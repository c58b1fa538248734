/**
 * JSON patch `move`s measure what they move once: the depth check (a moved value must not nest the
 * document past 1,000 levels) walked the whole moved subtree on every move, so a patch of 10,000
 * moves of a large subtree (within the operation limit) held the server for seconds. What is left
 * is the update of a 5,000-container Deployment itself (its managedFields: about 1 s on this
 * machine), so the row is held to 20 times the freeze bound.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { freezeBoundMs, underFreezeProbe } from '../freeze-probe.test-helper.js';
import { call } from '../testing/test-client.js';

const deployments = '/apis/apps/v1/namespaces/default/deployments';

describe('JSON patch moves', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer();
  });
  after(() => server.stop());

  test('10,000 moves of a 5,000-container list back and forth are served while other requests go on', async () => {
    const labels = { app: 'moves' };
    const containers = Array.from({ length: 5_000 }, (_, i) => ({ name: `c${i}`, image: 'nginx', env: [{ name: 'A', value: String(i) }] }));
    const created = await call(server.url, 'POST', deployments, { metadata: { name: 'moves' }, spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers } } } });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    const there = { op: 'move', from: '/spec/template/spec/containers', path: '/spec/template/spec/initContainers' };
    const back = { op: 'move', from: '/spec/template/spec/initContainers', path: '/spec/template/spec/containers' };
    const ops = Array.from({ length: 10_000 }, (_, i) => (i % 2 === 0 ? there : back));
    const bound = 20 * freezeBoundMs();
    const probed = await underFreezeProbe(server.url, () => call(server.url, 'PATCH', `${deployments}/moves`, JSON.stringify(ops), { contentType: 'application/json-patch+json' }));
    assert.equal(probed.res.status, 200, probed.res.text.slice(0, 300));
    assert.equal(probed.res.body.spec.template.spec.containers.length, 5_000);
    assert.ok(probed.worstGetMs < bound, `an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms; the patch took ${Math.round(probed.elapsedMs)} ms)`);
  });
});
