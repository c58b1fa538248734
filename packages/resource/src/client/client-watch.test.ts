import { after, before, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { defineKind } from '../define-kind.js';
import { isApiError, isBadRequest, isGone, isNetworkError } from '../errors.js';
import type { KubeObject } from '../object.js';
import { Client } from './client.js';
import { closeScriptedConnection, connectScriptedServer, sendJson, statusBody, waitFor } from './scripted-server.test-helper.js';
import type { ScriptedServer } from './scripted-server.test-helper.js';
import { HttpTransport } from './transport.js';
import type { WatchEvent, WatchResponse } from './types.js';

const WidgetKind = defineKind<{ size: number }>({ group: 'example.com', version: 'v1', kind: 'Widget' });

function eventLine(type: string, name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type, object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, resourceVersion: '1' }, ...extra } }) + '\n';
}

function startStream(res: http.ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
}

function describeEvent(event: WatchEvent): string {
  return event.type === 'ERROR' ? `ERROR ${event.error.code}` : `${event.type} ${event.object.metadata.name}`;
}

async function collect(watch: WatchResponse): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of watch) seen.push(describeEvent(event));
  return seen;
}

describe('Client.watch over HTTP', () => {
  let server: ScriptedServer;
  let transport: HttpTransport;
  let client: Client<KubeObject<{ size: number }>>;
  const open: WatchResponse[] = [];

  before(async () => {
    ({ server, transport } = await connectScriptedServer({ defaultTimeoutMs: 2000 }));
    client = new Client(WidgetKind, transport);
  });
  after(async () => {
    for (const watch of open) watch.stop();
    await closeScriptedConnection({ server, transport });
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  test('sends the watch query parameters, with bookmarks by default', async () => {
    server.reply((req, res) => {
      startStream(res);
      res.end();
    });
    await collect(await client.watch('ns1', { resourceVersion: '12', timeoutSeconds: 30, labelSelector: 'a=b', fieldSelector: 'metadata.name=w' }));
    await collect(await client.watch('', { allowWatchBookmarks: false, sendInitialEvents: true }));
    const [first, second] = server.requests;
    assert.equal(first!.path, '/apis/example.com/v1/namespaces/ns1/widgets');
    assert.deepEqual(Object.fromEntries(first!.query), {
      watch: 'true',
      resourceVersion: '12',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '30',
      labelSelector: 'a=b',
      fieldSelector: 'metadata.name=w',
    });
    assert.equal(second!.path, '/apis/example.com/v1/widgets');
    assert.deepEqual(Object.fromEntries(second!.query), {
      watch: 'true',
      allowWatchBookmarks: 'false',
      sendInitialEvents: 'true',
      resourceVersionMatch: 'NotOlderThan',
    });
  });

  test('yields events written one per chunk, in order, and ends when the server closes the stream', async () => {
    const lines = [eventLine('ADDED', 'a'), eventLine('MODIFIED', 'a'), eventLine('BOOKMARK', 'x'), eventLine('DELETED', 'a')];
    server.reply((req, res) => {
      startStream(res);
      const writeNext = (i: number): void => {
        if (i === lines.length) {
          res.end();
          return;
        }
        res.write(lines[i], () => setImmediate(() => writeNext(i + 1)));
      };
      writeNext(0);
    });
    assert.deepEqual(await collect(await client.watch('ns1')), ['ADDED a', 'MODIFIED a', 'BOOKMARK x', 'DELETED a']);
  });

  test('reassembles lines and multibyte characters split across chunks', async () => {
    const bytes = Buffer.from(eventLine('ADDED', 'é日本🎉') + eventLine('ADDED', 'b'));
    const cuts = [3, 40, 41, 42, 43, bytes.indexOf('🎉') + 1, bytes.indexOf('🎉') + 2, bytes.length - 5];
    server.reply((req, res) => {
      startStream(res);
      let at = 0;
      const writeNext = (i: number): void => {
        const end = i < cuts.length ? cuts[i]! : bytes.length;
        res.write(bytes.subarray(at, end), () => {
          at = end;
          if (end === bytes.length) res.end();
          else setImmediate(() => writeNext(i + 1));
        });
      };
      writeNext(0);
    });
    assert.deepEqual(await collect(await client.watch('ns1')), ['ADDED é日本🎉', 'ADDED b']);
  });

  test('delivers a malformed line and an ERROR Status as error events between good ones', async () => {
    server.reply((req, res) => {
      startStream(res);
      res.write(eventLine('ADDED', 'a') + '{oops\n' + eventLine('ADDED', 'b'));
      res.end(JSON.stringify({ type: 'ERROR', object: statusBody(410, 'Expired', 'too old resource version: 1 (9)') }) + '\n');
    });
    const events: WatchEvent[] = [];
    for await (const event of await client.watch('ns1', { resourceVersion: '1' })) events.push(event);
    assert.deepEqual(events.map(describeEvent), ['ADDED a', 'ERROR CodecError', 'ADDED b', 'ERROR ApiError']);
    const last = events[3]!;
    assert.ok(last.type === 'ERROR' && isGone(last.error));
  });

  test('rejects with an ApiError when the server does not answer 200', async () => {
    server.reply((req, res) => sendJson(res, 410, statusBody(410, 'Expired', 'too old resource version')));
    await assert.rejects(client.watch('ns1', { resourceVersion: '1' }), isGone);
    server.reply((req, res) => sendJson(res, 400, statusBody(400, 'BadRequest', 'bad resourceVersion')));
    await assert.rejects(client.watch('ns1', { resourceVersion: 'x' }), (err: unknown) => isBadRequest(err) && isApiError(err) && err.status === 400);
  });

  test('throws a NetworkError after the events received when the connection is reset mid-stream', async () => {
    server.reply((req, res) => {
      startStream(res);
      res.write(eventLine('ADDED', 'a'), () => setImmediate(() => res.socket?.destroy()));
    });
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of await client.watch('ns1')) seen.push(describeEvent(event));
      })(),
      isNetworkError,
    );
    assert.deepEqual(seen, ['ADDED a']);
  });

  test('stop() ends iteration normally and closes the connection', async () => {
    let serverSawClose = false;
    server.reply((req, res) => {
      startStream(res);
      res.on('close', () => (serverSawClose = true));
      res.write(eventLine('ADDED', 'a'));
    });
    const watch = await client.watch('ns1');
    open.push(watch);
    const iterator = watch[Symbol.asyncIterator]();
    assert.equal(describeEvent((await iterator.next()).value as WatchEvent), 'ADDED a');
    const pending = iterator.next();
    watch.stop();
    assert.equal((await pending).done, true);
    await waitFor(() => serverSawClose);
  });

  test('an aborted signal ends iteration normally', async () => {
    server.reply((req, res) => {
      startStream(res);
      res.write(eventLine('ADDED', 'a'));
    });
    const controller = new AbortController();
    const watch = await client.watch('ns1', { signal: controller.signal });
    open.push(watch);
    const seen: string[] = [];
    for await (const event of watch) {
      seen.push(describeEvent(event));
      controller.abort();
    }
    assert.deepEqual(seen, ['ADDED a']);
  });

  test('keeps a watch open beyond the request timeout of the transport', async () => {
    // The transport's request timer runs on mocked timers (sockets keep their own, real ones): the response
    // headers arrive over real HTTP, then the clock is moved past the timeout, which would fire that timer
    // had it stayed armed, before the stream ends.
    const timeoutMs = 1000;
    mock.timers.enable({ apis: ['setTimeout'] });
    const quick = new HttpTransport({ server: server.url, defaultTimeoutMs: timeoutMs });
    let finishStream: (() => void) | undefined;
    try {
      server.reply((_req, res) => {
        startStream(res);
        res.write(eventLine('ADDED', 'a'));
        finishStream = () => res.end(eventLine('ADDED', 'b'));
      });
      const watch = await new Client(WidgetKind, quick).watch('ns1');
      const events = collect(watch);
      mock.timers.tick(timeoutMs);
      finishStream!();
      assert.deepEqual(await events, ['ADDED a', 'ADDED b']);
    } finally {
      mock.timers.reset();
      quick.close();
    }
  });

  test('fails with ETIMEDOUT when the response headers never arrive', async () => {
    const quick = new HttpTransport({ server: server.url, defaultTimeoutMs: 50 });
    try {
      server.reply(() => undefined);
      await assert.rejects(new Client(WidgetKind, quick).watch('ns1'), (err: unknown) => isNetworkError(err) && err.errno === 'ETIMEDOUT');
    } finally {
      quick.close();
    }
  });
});
