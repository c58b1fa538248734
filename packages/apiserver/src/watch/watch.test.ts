import { request } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { RawWatch, call, waitFor } from '../testing/test-client.js';

const cms = '/api/v1/namespaces/default/configmaps';

describe('watch', () => {
  let server: ApiServer;
  const watches: RawWatch[] = [];
  const req = (method: string, path: string, body?: unknown, contentType?: string) =>
    call(server.url, method, path, body, contentType ? { contentType } : undefined);
  const watch = (query: string, path = cms): RawWatch => {
    const w = new RawWatch(`${server.url}${path}?watch=true&${query}`);
    watches.push(w);
    return w;
  };
  const create = async (name: string, labels?: Record<string, string>): Promise<string> => {
    const res = await req('POST', cms, { metadata: { name, labels } });
    assert.equal(res.status, 201, res.text);
    return res.body.metadata.resourceVersion as string;
  };

  before(async () => {
    server = await startApiServer({ historyWindow: 50 });
  });
  after(async () => {
    for (const w of watches) w.close();
    await server.stop();
  });

  test('a watch answers 200 application/json chunked with headers at once, one JSON line per chunk', async () => {
    const w = await watch('resourceVersion=0&labelSelector=suite%3Dchunks').ready();
    assert.equal(w.status, 200);
    assert.equal(w.headers['content-type'], 'application/json');
    assert.equal(w.headers['transfer-encoding'], 'chunked');
    await create('chunk-1', { suite: 'chunks' });
    await create('chunk-2', { suite: 'chunks' });
    await w.waitForEvents(2);
    assert.equal(w.chunks.length, 2, 'each event is its own chunk');
    for (const chunk of w.chunks) {
      assert.ok(chunk.endsWith('\n'));
      assert.equal(chunk.indexOf('\n'), chunk.length - 1, 'one compact line');
    }
  });

  test('from resourceVersion "" or "0" every existing object arrives as ADDED, then live changes', async () => {
    await create('init-a', { suite: 'init' });
    await create('init-b', { suite: 'init' });
    for (const rv of ['', '0']) {
      const w = await watch(`resourceVersion=${rv}&labelSelector=suite%3Dinit`).ready();
      await w.waitForEvents(2);
      assert.deepEqual(w.events.map((e) => [e.type, String(e.object.metadata.name)]).sort(), [
        ['ADDED', 'init-a'],
        ['ADDED', 'init-b'],
      ]);
      w.close();
    }
  });

  test('from resourceVersion N only the changes after N arrive, in order', async () => {
    const rv1 = await create('resume-1', { suite: 'resume' });
    await create('resume-2', { suite: 'resume' });
    await req('PATCH', `${cms}/resume-1`, { data: { x: '1' } }, 'application/merge-patch+json');
    const w = await watch(`resourceVersion=${rv1}&labelSelector=suite%3Dresume`).ready();
    await w.waitForEvents(2);
    assert.deepEqual(
      w.events.map((e) => [e.type, String(e.object.metadata.name)]),
      [
        ['ADDED', 'resume-2'],
        ['MODIFIED', 'resume-1'],
      ],
    );
    const rvs = w.events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.ok(rvs[0]! > Number(rv1) && rvs[1]! > rvs[0]!);
  });

  test('a resume from before the history window gets one ERROR 410 event and the stream closes', async () => {
    const rv = await create('window-0');
    for (let i = 1; i <= 60; i++) await req('PATCH', `${cms}/window-0`, { data: { i: String(i) } }, 'application/merge-patch+json');
    const w = await watch(`resourceVersion=${rv}`).ready();
    assert.equal(w.status, 200);
    await waitFor(() => w.ended);
    assert.equal(w.events.length, 1);
    assert.equal(w.events[0]!.type, 'ERROR');
    assert.equal(w.events[0]!.object.code, 410);
    assert.match(w.events[0]!.object.message, new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));
  });

  test('after faults.compact() any older resourceVersion gets 410, the current one still works', async () => {
    const rv = await create('compact-1');
    await create('compact-1b');
    server.faults.compact();
    const old = await watch(`resourceVersion=${rv}`).ready();
    await waitFor(() => old.ended);
    assert.equal(old.events[0]!.object.code, 410);
    const current = await watch(`resourceVersion=${server.resourceVersion()}&fieldSelector=metadata.name%3Dcompact-2`).ready();
    await create('compact-2');
    const [event] = await current.waitForEvents(1);
    assert.equal(event!.type, 'ADDED');
  });

  test('an unparseable resourceVersion is 400 before the stream starts', async () => {
    const res = await req('GET', `${cms}?watch=true&resourceVersion=abc`);
    assert.equal(res.status, 400);
    assert.equal(res.body.reason, 'BadRequest');
  });

  test('bookmarks are sent only when asked, with kind, apiVersion and the resourceVersion', async () => {
    const plain = await watch(`resourceVersion=${server.resourceVersion()}&fieldSelector=metadata.name%3Dnone`).ready();
    const asked = await watch(`resourceVersion=${server.resourceVersion()}&allowWatchBookmarks=true&fieldSelector=metadata.name%3Dnone`).ready();
    await asked.waitForEvents(1, 3000);
    const bookmark = asked.events[0]!;
    assert.equal(bookmark.type, 'BOOKMARK');
    assert.deepEqual(bookmark.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: server.resourceVersion() } });
    assert.equal(plain.events.length, 0);
  });

  test('timeoutSeconds closes the stream cleanly, with a bookmark first when asked', async () => {
    const started = Date.now();
    const w = await watch(`resourceVersion=${server.resourceVersion()}&timeoutSeconds=1&allowWatchBookmarks=true&fieldSelector=metadata.name%3Dnone`).ready();
    await waitFor(() => w.ended, { timeoutMs: 3000 });
    assert.ok(Date.now() - started >= 900);
    assert.equal(w.error, undefined);
    assert.equal(w.events.at(-1)?.type, 'BOOKMARK');
  });

  test('a timeoutSeconds longer than a Node timer can hold keeps the stream open; one beyond int64 is 400', async () => {
    for (const timeout of ['2147484', '9223372036854775807']) {
      const w = await watch(`resourceVersion=${server.resourceVersion()}&timeoutSeconds=${timeout}&fieldSelector=metadata.name%3Dlong-timeout-${timeout}`).ready();
      assert.equal(w.status, 200);
      // Node turns a delay beyond 2^31-1 ms into 1 ms: the stream used to end before this create.
      await create(`long-timeout-${timeout}`);
      await w.waitForEvents(1);
      assert.equal(w.events[0]!.type, 'ADDED');
      assert.equal(w.ended, false, `timeoutSeconds=${timeout}: still open`);
      w.close();
    }
    const tooLarge = await req('GET', `${cms}?watch=true&timeoutSeconds=9223372036854775808`);
    assert.equal(tooLarge.status, 400);
    assert.equal(
      tooLarge.body.message,
      'timeoutSeconds: Invalid value: "9223372036854775808": strconv.ParseInt: parsing "9223372036854775808": value out of range',
    );
  });

  test('sendInitialEvents=true sends ADDED for every object, then the initial-events-end bookmark, then live events', async () => {
    await create('sie-a', { suite: 'sie' });
    const w = await watch('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=suite%3Dsie').ready();
    await w.waitForEvents(2);
    assert.equal(w.events[0]!.type, 'ADDED');
    assert.equal(w.events[1]!.type, 'BOOKMARK');
    assert.deepEqual(w.events[1]!.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
    await create('sie-b', { suite: 'sie' });
    await waitFor(() => w.events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'sie-b'));
    const invalid = await req('GET', `${cms}?watch=true&sendInitialEvents=true`);
    assert.equal(invalid.status, 422, 'sendInitialEvents requires resourceVersionMatch=NotOlderThan');
  });

  test('selectors apply to events: entering is ADDED, leaving is DELETED, outside is silent', async () => {
    await create('sel-1', { color: 'blue' });
    const w = await watch(`resourceVersion=${server.resourceVersion()}&labelSelector=color%3Dred`).ready();
    await req('PATCH', `${cms}/sel-1`, { metadata: { labels: { color: 'red' } } }, 'application/merge-patch+json');
    await req('PATCH', `${cms}/sel-1`, { data: { a: '1' } }, 'application/merge-patch+json');
    await req('PATCH', `${cms}/sel-1`, { metadata: { labels: { color: 'green' } } }, 'application/merge-patch+json');
    await req('PATCH', `${cms}/sel-1`, { data: { a: '2' } }, 'application/merge-patch+json');
    await w.waitForEvents(3);
    const types = w.events.map((e) => e.type);
    assert.deepEqual(types, ['ADDED', 'MODIFIED', 'DELETED']);
    const deleted = w.events[2]!.object;
    assert.equal(deleted.metadata.labels.color, 'red', 'DELETED carries the last matching content');
    const rv = Number(deleted.metadata.resourceVersion);
    assert.ok(rv > Number(w.events[1]!.object.metadata.resourceVersion), 'at the resourceVersion of the change');
  });

  test('a fieldSelector=metadata.name watch (kubectl delete --wait) sees only that object, including its deletion', async () => {
    await create('target');
    await create('bystander');
    const w = await watch(`resourceVersion=${server.resourceVersion()}&fieldSelector=metadata.name%3Dtarget`).ready();
    await req('DELETE', `${cms}/bystander`);
    await req('DELETE', `${cms}/target`);
    const [event] = await w.waitForEvents(1);
    assert.equal(event!.type, 'DELETED');
    assert.equal(event!.object.metadata.name, 'target');
    assert.equal(w.events.length, 1);
  });

  test('changes applied in one event-loop turn arrive as one chunk, still one JSON object per line', async () => {
    for (let i = 0; i < 5; i++) await create(`batch-${i}`, { suite: 'batch' });
    const w = await watch(`resourceVersion=${server.resourceVersion()}&labelSelector=suite%3Dbatch`).ready();
    // One delete-collection request deletes the five objects within one turn.
    assert.equal((await req('DELETE', `${cms}?labelSelector=suite%3Dbatch`)).status, 200);
    await w.waitForEvents(5);
    assert.equal(w.chunks.length, 1, 'the five events left in one write');
    const lines = (w.chunks[0] as string).split('\n');
    assert.equal(lines.pop(), '', 'the chunk ends with a newline');
    assert.equal(lines.length, 5);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { type: string; object: { metadata: { name: string } } }).type),
      ['DELETED', 'DELETED', 'DELETED', 'DELETED', 'DELETED'],
    );
    assert.deepEqual(w.events.map((e) => String(e.object.metadata.name)).sort(), ['batch-0', 'batch-1', 'batch-2', 'batch-3', 'batch-4']);
  });

  test('under concurrent writes a client reading line by line sees every event, in resourceVersion order', async () => {
    const objects = 8;
    for (let i = 0; i < objects; i++) await create(`order-${i}`, { suite: 'order', half: String(i % 2) });
    const all = await watch(`resourceVersion=${server.resourceVersion()}&labelSelector=suite%3Dorder`).ready();
    const half = await watch(`resourceVersion=${server.resourceVersion()}&labelSelector=half%3D0`).ready();
    const writes = 240;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < writes) {
          const n = next++;
          const res = await req('PATCH', `${cms}/order-${n % objects}`, { data: { n: String(n) } }, 'application/merge-patch+json');
          assert.equal(res.status, 200, res.text);
        }
      }),
    );
    await all.waitForEvents(writes);
    await half.waitForEvents(writes / 2);
    for (const w of [all, half]) {
      const rvs = w.events.map((e) => Number(e.object.metadata.resourceVersion));
      assert.ok(
        rvs.every((rv, i) => i === 0 || rv > (rvs[i - 1] as number)),
        'resourceVersions increase',
      );
      assert.ok(w.events.every((e) => e.type === 'MODIFIED'));
    }
    assert.equal(all.events.length, writes);
    assert.equal(half.events.length, writes / 2);
    assert.deepEqual(
      half.events.map((e) => String(e.object.metadata.resourceVersion)),
      all.events.filter((e) => Number(String(e.object.metadata.name).slice('order-'.length)) % 2 === 0).map((e) => String(e.object.metadata.resourceVersion)),
      'the filtered watcher sees exactly its share',
    );
    assert.equal(all.partial, '', 'no torn line');
  });

  test('a client that goes away is forgotten by the server', async () => {
    const w = await watch(`resourceVersion=${server.resourceVersion()}`).ready();
    w.close();
    // The server keeps working and later writes do not fail on the closed socket.
    await create('after-close');
    assert.equal((await req('GET', `${cms}/after-close`)).status, 200);
  });
});

describe('slow watchers', () => {
  let server: ApiServer;
  let slowRequest: ClientRequest | undefined;

  before(async () => {
    server = await startApiServer({ maxWatchBufferBytes: 1024 * 1024 });
  });
  after(async () => {
    slowRequest?.destroy();
    await server.stop();
  });

  test('a watcher that does not read is ended cleanly once maxWatchBufferBytes is queued, and resumes without loss', async () => {
    const big = 'x'.repeat(100 * 1024);
    const created = await call(server.url, 'POST', cms, { metadata: { name: 'slow' }, data: { big, n: '0' } });
    assert.equal(created.status, 201, created.text);
    // A client that stops reading at once: the kernel buffers fill, then the server's queue.
    let response: IncomingMessage | undefined;
    slowRequest = request(`${server.url}${cms}?watch=true&resourceVersion=${server.resourceVersion()}&fieldSelector=metadata.name%3Dslow`, (res) => {
      res.pause();
      response = res;
    });
    slowRequest.end();
    await waitFor(() => response);
    const writes = 300;
    for (let n = 1; n <= writes; n++) {
      const res = await call(server.url, 'PATCH', `${cms}/slow`, { data: { n: String(n) } }, { contentType: 'application/merge-patch+json' });
      assert.equal(res.status, 200, res.text);
    }
    // Now read: whole lines in order, then a clean end well before the last write.
    const res = response as IncomingMessage;
    let text = '';
    let ended = false;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => (ended = true));
    res.resume();
    await waitFor(() => ended, { timeoutMs: 10_000, message: 'the slow watch ends' });
    const lines = text.split('\n');
    assert.equal(lines.pop(), '', 'no torn line');
    const ns = lines.map((line) => Number((JSON.parse(line) as { object: { data: { n: string } } }).object.data.n));
    assert.ok(ns.length > 0 && ns.length < writes, `ended early (received ${ns.length} of ${writes})`);
    assert.deepEqual(
      ns,
      ns.map((_, i) => i + 1),
      'every event up to the end, in order',
    );
    const lastRv = (JSON.parse(lines.at(-1) as string) as { object: { metadata: { resourceVersion: string } } }).object.metadata.resourceVersion;
    // The client re-watches from the last resourceVersion it saw and gets the rest.
    const resumed = new RawWatch(`${server.url}${cms}?watch=true&resourceVersion=${lastRv}&fieldSelector=metadata.name%3Dslow`);
    try {
      await resumed.waitForEvents(writes - ns.length, 10_000);
      assert.deepEqual(
        resumed.events.map((e) => Number(e.object.data.n)),
        Array.from({ length: writes - ns.length }, (_, i) => ns.length + 1 + i),
      );
    } finally {
      resumed.close();
    }
  });
});

describe('watch history bounded in bytes', () => {
  test('large changes are forgotten once they pass historyBytes: an old resume gets 410, a recent one its events', async () => {
    const server = await startApiServer({ historyBytes: 4 * 1024 * 1024 });
    const watches: RawWatch[] = [];
    try {
      const filler = 'x'.repeat(512 * 1024);
      const rvs: string[] = [];
      const created = await call(server.url, 'POST', cms, { metadata: { name: 'big' }, data: { step: '0', filler } });
      assert.equal(created.status, 201, created.text);
      rvs.push(created.body.metadata.resourceVersion);
      // Each update keeps its new and its previous state: about 1 MiB per change.
      for (let step = 1; step <= 20; step++) {
        const patched = await call(server.url, 'PATCH', `${cms}/big`, { data: { step: String(step) } }, { contentType: 'application/merge-patch+json' });
        assert.equal(patched.status, 200, patched.text);
        rvs.push(patched.body.metadata.resourceVersion);
      }

      const old = new RawWatch(`${server.url}${cms}?watch=true&resourceVersion=${rvs[1]}`);
      watches.push(old);
      await old.waitForEvents(1);
      assert.equal(old.events[0]!.type, 'ERROR');
      assert.equal(old.events[0]!.object.code, 410);
      assert.equal(old.events[0]!.object.reason, 'Expired');

      const recent = new RawWatch(`${server.url}${cms}?watch=true&resourceVersion=${rvs[18]}`);
      watches.push(recent);
      const events = await recent.waitForEvents(2);
      assert.deepEqual(events.map((e): [string, string] => [e.type, String(e.object.data.step)]), [
        ['MODIFIED', '19'],
        ['MODIFIED', '20'],
      ]);
    } finally {
      for (const w of watches) w.close();
      await server.stop();
    }
  });
});
