/**
 * JSON patch `move`s do not walk what they move: the depth check (a moved value must not nest the
 * document past 1,000 levels) walked the whole moved subtree on every move, so a patch of 10,000
 * moves of a large subtree (within the operation limit) held the server for seconds. A patch of a
 * large object (64 KiB and more) is applied in the server's worker thread, like the other large
 * writes, so these rows are held to the freeze bound.
 *
 * A depth cached per container was not enough: an add into the moved map forgets its depth, so a
 * patch alternating adds into a 1 MB map and moves of it walked the map on every move (no answer
 * within 200 s). Moves are now not measured at all (the result's depth is checked once), and the
 * shifts of array elements that inserts and removes cause are budgeted: 10,000 moves of the first
 * element of a 450,000-element array held the server 3.8 s.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { underFreezeProbe } from '../freeze-probe.test-helper.js';
import { call, waitFor } from '../testing/test-client.js';
import { maxJsonPatchArrayShifts } from './json-patch.js';

const deployments = '/apis/apps/v1/namespaces/default/deployments';
const configMaps = '/api/v1/namespaces/default/configmaps';
const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const bags = '/apis/example.com/v1/namespaces/default/bags';
const jsonPatch = { contentType: 'application/json-patch+json' };

/** A CRD `bags.example.com` whose `spec` keeps whatever it is given. */
const bagCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'bags.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'bags', kind: 'Bag' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } }],
  },
};

describe('JSON patch moves', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer();
  });
  after(() => server.stop());

  test('10,000 moves of a 5,000-container list back and forth are served while other requests go on', async (t) => {
    const labels = { app: 'moves' };
    const containers = Array.from({ length: 5_000 }, (_, i) => ({ name: `c${i}`, image: 'nginx', env: [{ name: 'A', value: String(i) }] }));
    const created = await call(server.url, 'POST', deployments, { metadata: { name: 'moves' }, spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers } } } });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    const there = { op: 'move', from: '/spec/template/spec/containers', path: '/spec/template/spec/initContainers' };
    const back = { op: 'move', from: '/spec/template/spec/initContainers', path: '/spec/template/spec/containers' };
    const ops = Array.from({ length: 10_000 }, (_, i) => (i % 2 === 0 ? there : back));
    const probed = await underFreezeProbe(server.url, () => call(server.url, 'PATCH', `${deployments}/moves`, JSON.stringify(ops), { contentType: 'application/json-patch+json' }));
    const bound = probed.boundMs;
    assert.equal(probed.res.status, 200, probed.res.text.slice(0, 300));
    assert.equal(probed.res.body.spec.template.spec.containers.length, 5_000);
    t.diagnostic(`${Math.round(probed.elapsedMs)} ms; an unrelated GET waited at most ${Math.round(probed.worstGetMs)} ms, ${Math.round(probed.worstNewConnectionGetMs)} ms on new connections (bound ${bound} ms)`);
    assert.ok(probed.worstGetMs < bound, `an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms; the patch took ${Math.round(probed.elapsedMs)} ms)`);
  });

  test('5,000 adds into a 30,000-key map, each followed by a move of the map, cost about what the adds alone cost', async (t) => {
    const data = Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`k${i}`, '']));
    for (const name of ['adds-only', 'adds-and-moves']) assert.equal((await call(server.url, 'POST', configMaps, { metadata: { name }, data })).status, 201);
    // The update of the grown map is most of the work (and the client shares this process): the
    // same adds without the moves are the baseline.
    const adds = Array.from({ length: 5_000 }, (_, i) => ({ op: 'add', path: `/data/added${2 * i}`, value: 'a' }));
    const baseline = await underFreezeProbe(server.url, () => call(server.url, 'PATCH', `${configMaps}/adds-only`, JSON.stringify(adds), jsonPatch));
    assert.equal(baseline.res.status, 200, baseline.res.text.slice(0, 300));
    // Each add changes the map, so nothing known of it before still holds when the move comes.
    const ops = Array.from({ length: 10_000 }, (_, i) => {
      const [here, there] = i % 4 < 2 ? ['/data', '/moved'] : ['/moved', '/data'];
      return i % 2 === 0 ? { op: 'add', path: `${here}/added${i}`, value: 'a' } : { op: 'move', from: here, path: there };
    });
    const probed = await underFreezeProbe(server.url, () => call(server.url, 'PATCH', `${configMaps}/adds-and-moves`, JSON.stringify(ops), jsonPatch));
    assert.equal(probed.res.status, 200, probed.res.text.slice(0, 300));
    assert.deepEqual(probed.res.body.data, baseline.res.body.data);
    const bound = Math.round(2 * baseline.worstGetMs + probed.boundMs);
    t.diagnostic(`adds: ${Math.round(baseline.elapsedMs)} ms, GET waited ${Math.round(baseline.worstGetMs)} ms; adds and moves: ${Math.round(probed.elapsedMs)} ms, GET waited ${Math.round(probed.worstGetMs)} ms`);
    assert.ok(probed.worstGetMs < bound, `an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms: twice the adds alone, plus ${probed.boundMs} ms; the patch took ${Math.round(probed.elapsedMs)} ms)`);
    assert.ok(probed.worstGetMs < probed.boundMs, `an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (the freeze bound is ${probed.boundMs} ms)`);
  });

  test('10,000 moves of the first element of a 450,000-element array to its end are refused at once (422), a few are applied', async (t) => {
    assert.equal((await call(server.url, 'POST', crds, bagCrd)).status, 201);
    await waitFor(async () => (await call(server.url, 'GET', bags)).status === 200, { message: 'bags served' });
    const created = await call(server.url, 'POST', bags, { apiVersion: 'example.com/v1', kind: 'Bag', metadata: { name: 'long' }, spec: { items: Array.from({ length: 450_000 }, (_, i) => i) } });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    const rotate = (count: number): string => JSON.stringify(Array.from({ length: count }, () => ({ op: 'move', from: '/spec/items/0', path: '/spec/items/-' })));
    const probed = await underFreezeProbe(server.url, () => call(server.url, 'PATCH', `${bags}/long`, rotate(10_000), jsonPatch));
    const bound = probed.boundMs;
    assert.equal(probed.res.status, 422, probed.res.text.slice(0, 300));
    assert.equal(probed.res.body.message, `Unable to apply, the array elements shifted by inserts and removes exceed ${maxJsonPatchArrayShifts}`);
    t.diagnostic(`${Math.round(probed.elapsedMs)} ms; an unrelated GET waited at most ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms)`);
    assert.ok(probed.worstGetMs < bound, `an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms; the patch took ${Math.round(probed.elapsedMs)} ms)`);
    // 20 rotations shift 9 million elements: within the budget.
    const few = await call(server.url, 'PATCH', `${bags}/long`, rotate(20), jsonPatch);
    assert.equal(few.status, 200, few.text.slice(0, 300));
    const items = few.body.spec.items as number[];
    assert.deepEqual([items.length, items[0], items[items.length - 1]], [450_000, 20, 19]);
  });
});
