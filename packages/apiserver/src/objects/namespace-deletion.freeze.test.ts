import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { startApiServer } from '../api-server.js';
import { WriteAheadLog } from '../persistence/index.js';
import { call, waitFor } from '../testing/test-client.js';
import { serverForSuite } from '../suite-server.test-helper.js';
import { tempDirsForSuite } from '../temp-dirs.test-helper.js';

const configMaps = (namespace: string): string => `/api/v1/namespaces/${namespace}/configmaps`;

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

interface NamespaceBody {
  metadata: { resourceVersion: string; finalizers?: string[] };
  status: { conditions: Condition[] };
}

/** Creates `count` ConfigMaps in `namespace`, 50 requests at a time. */
async function fill(url: string, namespace: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 50) {
    const batch = Array.from({ length: Math.min(50, count - i) }, (_, j) => call(url, 'POST', configMaps(namespace), { metadata: { name: `cm-${i + j}` }, data: { k: 'v'.repeat(100) } }));
    for (const created of await Promise.all(batch)) assert.equal(created.status, 201, created.text);
  }
}

/** One POST on a connection of its own (no keep-alive): its answer time in ms. */
function timedCreate(url: string, agent: Agent): Promise<number> {
  const started = performance.now();
  const body = JSON.stringify({ metadata: { generateName: 'probe-' } });
  return new Promise((resolve, reject) => {
    const req = request(`${url}${configMaps('default')}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 201 ? resolve(performance.now() - started) : reject(new Error(`probe write answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('namespace deletion', () => {
  const suite = serverForSuite();
  const { req, watch } = suite;
  const tempDir = tempDirsForSuite('kubeloop-nsdel-');

  test('DELETE answers at once with the namespace Terminating; its contents go in the background, finalizer-held ones keep it, with upstream conditions', async () => {
    const created = await req('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    assert.equal(created.status, 201);
    await req('POST', configMaps('doomed'), { metadata: { name: 'a' } });
    await req('POST', configMaps('doomed'), { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await req('POST', '/api/v1/namespaces/doomed/secrets', { metadata: { name: 's' } });
    const w = await watch(`/api/v1/namespaces?watch=true&fieldSelector=metadata.name=doomed&resourceVersion=${created.body.metadata.resourceVersion}`).ready();

    const del = await req('DELETE', '/api/v1/namespaces/doomed');
    assert.equal(del.status, 200);
    assert.equal(del.body.status.phase, 'Terminating');
    assert.ok(del.body.metadata.deletionTimestamp);
    assert.equal(del.body.metadata.deletionGracePeriodSeconds, undefined, 'kube-apiserver sets no grace period on a namespace');
    assert.deepEqual(del.body.spec.finalizers, ['kubernetes']);

    const blocked = await req('POST', configMaps('doomed'), { metadata: { name: 'late' } });
    assert.equal(blocked.status, 403);
    assert.equal(blocked.body.message, 'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated');
    assert.deepEqual(blocked.body.details.causes, [{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }]);

    const ns = await waitFor(
      async () => {
        const got = await req('GET', '/api/v1/namespaces/doomed');
        const conditions: Condition[] = got.body.status?.conditions ?? [];
        return conditions.length === 5 ? (got.body as NamespaceBody) : undefined;
      },
      { message: 'the namespace conditions' },
    );
    assert.ok(ns);
    assert.deepEqual(
      ns.status.conditions.map(({ type, status, reason, message }) => ({ type, status, reason, message })),
      [
        { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
        { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
        { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
        { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances' },
        { type: 'NamespaceFinalizersRemaining', status: 'True', reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances' },
      ],
    );
    assert.equal((await req('GET', `${configMaps('doomed')}/a`)).status, 404);
    assert.equal((await req('GET', '/api/v1/namespaces/doomed/secrets/s')).status, 404);
    const held = await req('GET', `${configMaps('doomed')}/held`);
    assert.ok(held.body.metadata.deletionTimestamp, 'the held object is being deleted');

    const again = await req('DELETE', '/api/v1/namespaces/doomed');
    assert.equal(again.status, 200, 'a second DELETE answers the namespace, as kube-apiserver');
    assert.equal(again.body.metadata.resourceVersion, ns.metadata.resourceVersion, 'and changes nothing');

    await req('PATCH', `${configMaps('doomed')}/held`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    await waitFor(async () => (await req('GET', '/api/v1/namespaces/doomed')).status === 404, { message: 'the namespace to go' });
    const events = await w.waitForEvents(3);
    await waitFor(() => w.changes.at(-1)?.type === 'DELETED', { message: 'the DELETED event' });
    const types = w.changes.map((e) => e.type);
    assert.equal(types.at(-1), 'DELETED');
    assert.ok(types.slice(0, -1).every((t) => t === 'MODIFIED'), `MODIFIED events, then DELETED: ${types.join(' ')}`);
    assert.equal(events[0]?.object.status.phase, 'Terminating');
    assert.equal(events[0]?.object.status.conditions, undefined, 'the first MODIFIED is the DELETE itself');
  });

  test('an empty namespace goes too, and a namespace metadata finalizer holds it after its contents are gone', async () => {
    await req('POST', '/api/v1/namespaces', { metadata: { name: 'empty' } });
    assert.equal((await req('DELETE', '/api/v1/namespaces/empty')).status, 200);
    await waitFor(async () => (await req('GET', '/api/v1/namespaces/empty')).status === 404, { message: 'the empty namespace to go' });

    await req('POST', '/api/v1/namespaces', { metadata: { name: 'kept', finalizers: ['example.com/keep'] } });
    await req('POST', configMaps('kept'), { metadata: { name: 'x' } });
    assert.equal((await req('DELETE', '/api/v1/namespaces/kept')).status, 200);
    const finalized = await waitFor(
      async () => {
        const got = await req('GET', '/api/v1/namespaces/kept');
        return got.body.spec?.finalizers?.length === 0 ? (got.body as NamespaceBody) : undefined;
      },
      { message: 'the kubernetes finalizer to leave spec.finalizers' },
    );
    assert.ok(finalized);
    assert.deepEqual(finalized.metadata.finalizers, ['example.com/keep']);
    assert.equal((await req('GET', `${configMaps('kept')}/x`)).status, 404);
    await req('PATCH', '/api/v1/namespaces/kept', { metadata: { finalizers: null } }, 'application/merge-patch+json');
    assert.equal((await req('GET', '/api/v1/namespaces/kept')).status, 404, 'the write that removes the last finalizer removes the namespace');
  });

  test('freeze probe: while a namespace of 5,000 objects is deleted, unrelated writes answer within 100 ms', { timeout: 120_000 }, async () => {
    const { url } = suite.server;
    await req('POST', '/api/v1/namespaces', { metadata: { name: 'big' } });
    await fill(url, 'big', 5000);
    const agent = new Agent({ keepAlive: false });
    const started = performance.now();
    const del = await req('DELETE', '/api/v1/namespaces/big');
    const answeredMs = performance.now() - started;
    assert.equal(del.status, 200);
    const latencies: number[] = [];
    let remainingAtFirstProbe = -1;
    for (;;) {
      latencies.push(await timedCreate(url, agent));
      const list = await req('GET', `${configMaps('big')}?limit=1`);
      if (remainingAtFirstProbe < 0) remainingAtFirstProbe = list.status === 200 ? list.body.items.length + Number(list.body.metadata.remainingItemCount ?? 0) : 0;
      if ((await req('GET', '/api/v1/namespaces/big')).status === 404) break;
      assert.ok(performance.now() - started < 60_000, 'the namespace goes within 60 s');
    }
    assert.ok(remainingAtFirstProbe > 0, `the DELETE was answered before the contents were gone (${remainingAtFirstProbe} left at the first probe)`);
    assert.ok(answeredMs < 100, `DELETE answered in ${answeredMs.toFixed(0)} ms`);
    assert.ok(Math.max(...latencies) < 100, `worst unrelated write ${Math.max(...latencies).toFixed(0)} ms over ${latencies.length} probes`);
    assert.equal((await req('GET', `${configMaps('big')}?limit=1`)).body.items.length, 0);
  });

  test('a restart in the middle of a namespace deletion finishes it', { timeout: 60_000 }, async () => {
    const dataDir = await tempDir();
    const first = await startApiServer({ dataDir });
    try {
      await call(first.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'cut' } });
      await fill(first.url, 'cut', 500);
      assert.equal((await call(first.url, 'DELETE', '/api/v1/namespaces/cut')).status, 200);
    } finally {
      await first.stop();
    }
    // The log as the first server left it: the namespace Terminating, with objects still in it.
    const { log, records } = await WriteAheadLog.open(dataDir, { fsync: 'never' });
    await log.close();
    const live = new Map<string, unknown>();
    for (const r of records) {
      if (r.op === 'put') live.set(r.key, r.object);
      else live.delete(r.key);
    }
    const leftBehind = [...live.keys()].filter((k) => k.startsWith('/configmaps|cut/')).length;
    assert.ok(leftBehind > 0, 'the stop cut the deletion short');
    assert.ok((live.get('/namespaces|cut') as { metadata: { deletionTimestamp?: string } } | undefined)?.metadata.deletionTimestamp, 'the namespace was left Terminating');

    const second = await startApiServer({ dataDir });
    try {
      await waitFor(async () => (await call(second.url, 'GET', '/api/v1/namespaces/cut')).status === 404, { timeoutMs: 30_000, message: 'the restarted server to finish the deletion' });
      assert.equal((await call(second.url, 'GET', `${configMaps('cut')}?limit=1`)).body.items.length, 0);
    } finally {
      await second.stop();
    }
  });
});
