import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineKind } from '../define-kind.js';
import { ApiError, isConflict, isServerError, isTooManyRequests } from '../errors.js';
import { Client } from './client.js';
import type { ClientOptions } from './client.js';
import { DEFAULT_REQUEST_RETRY, abortableSleep } from './request-retry.js';
import { retryOnConflict } from './retry-on-conflict.js';
import { closeScriptedConnection, connectScriptedServer, sendJson, statusBody } from './scripted-server.test-helper.js';
import type { ScriptedServer } from './scripted-server.test-helper.js';
import type { HttpTransport } from './transport.js';

const WidgetKind = defineKind({ group: 'example.com', version: 'v1', kind: 'Widget' });
const id = { namespace: 'ns1', name: 'w1' };
const widgetBody = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'ns1', resourceVersion: '5' } };

describe('Client retries over HTTP (virtual waits)', () => {
  let server: ScriptedServer;
  let transport: HttpTransport;
  /** The waits the client asked for, instead of sleeping. */
  let waits: number[];

  before(async () => ({ server, transport } = await connectScriptedServer()));
  after(() => closeScriptedConnection({ server, transport }));
  beforeEach(() => {
    server.requests.length = 0;
    waits = [];
  });

  function client(retry: ClientOptions['retry'] = {}): Client {
    return new Client(WidgetKind, transport, { retry: retry === false ? false : { random: () => 0.5, sleep: async (ms) => void waits.push(ms), ...retry } });
  }

  /** Answers the first `failures` requests with `status` (and `headers`), then with the widget. */
  function failFirst(failures: number, status: number, headers: Record<string, string> = {}): void {
    let seen = 0;
    server.reply((_req, res) => {
      if (seen++ < failures) sendJson(res, status, statusBody(status, 'Busy', 'try later'), headers);
      else sendJson(res, 200, widgetBody);
    });
  }

  test('a GET answered 503 is retried with jittered backoff from 500 ms doubling, then succeeds', async () => {
    failFirst(2, 503);
    const got = await client().get(id);
    assert.equal(got.metadata.name, 'w1');
    assert.equal(server.requests.length, 3);
    assert.deepEqual(waits, [375, 750], 'random 0.5 scales each backoff by 0.75');
  });

  test('the backoff is capped at maxDelayMs and retries stop after maxRetries (3 by default) with the last error', async () => {
    failFirst(100, 500);
    await assert.rejects(client({ maxDelayMs: 600, random: () => 1 }).get(id), isServerError);
    assert.equal(server.requests.length, 1 + DEFAULT_REQUEST_RETRY.maxRetries);
    assert.deepEqual(waits, [500, 600, 600]);
  });

  test('a 429 is retried for every request, a POST included, after its Retry-After (capped at maxRetryAfterMs)', async () => {
    failFirst(2, 429, { 'Retry-After': '2' });
    await client({ maxRetryAfterMs: 1_500 }).create({ ...widgetBody, metadata: { name: 'w1', namespace: 'ns1' } });
    assert.deepEqual(server.requests.map((r) => r.method), ['POST', 'POST', 'POST']);
    assert.deepEqual(waits, [1_500, 1_500]);
    failFirst(1, 429, { 'Retry-After': '1' });
    waits = [];
    await client().list('ns1').catch(() => undefined);
    assert.deepEqual(waits, [1_000]);
  });

  test('5xx is not retried for a create or a JSON patch (not idempotent), but is for update, delete and a merge patch', async () => {
    for (const [call, retried] of [
      [(c: Client) => c.create({ ...widgetBody, metadata: { name: 'w1', namespace: 'ns1' } }), false],
      [(c: Client) => c.patch(id, { operations: [{ op: 'add', path: '/metadata/labels', value: {} }] }), false],
      [(c: Client) => c.patch(id, { merge: { metadata: { labels: { a: 'b' } } } }), true],
      [(c: Client) => c.update(widgetBody), true],
      [(c: Client) => c.delete(id), true],
    ] as const) {
      server.requests.length = 0;
      failFirst(1, 503);
      const outcome = await call(client()).then(
        () => 'ok',
        (err: unknown) => err,
      );
      assert.equal(server.requests.length, retried ? 2 : 1, `${server.requests[0]!.method} ${server.requests[0]!.headers['content-type']}`);
      if (!retried) assert.ok(isServerError(outcome));
    }
  });

  test('501, 505 and 4xx other than 429 are not retried; retry: false turns retries off', async () => {
    for (const status of [501, 505, 400, 404, 409]) {
      server.requests.length = 0;
      failFirst(1, status);
      await assert.rejects(client().get(id), ApiError);
      assert.equal(server.requests.length, 1, String(status));
    }
    server.requests.length = 0;
    failFirst(1, 429);
    await assert.rejects(client(false).get(id), isTooManyRequests);
    assert.equal(server.requests.length, 1);
  });

  test('an abort during the wait rejects with the abort reason and sends nothing more', async () => {
    const abort = new AbortController();
    let sleeping!: () => void;
    const asleep = new Promise<void>((resolve) => (sleeping = resolve));
    server.reply((_req, res) => sendJson(res, 503, statusBody(503, 'ServiceUnavailable', 'down')));
    const real = new Client(WidgetKind, transport, {
      retry: {
        minDelayMs: 60_000,
        sleep: (ms, signal) => {
          sleeping();
          return abortableSleep(ms, signal);
        },
      },
    });
    const pending = real.get(id, { signal: abort.signal });
    await asleep;
    abort.abort(new Error('stop'));
    await assert.rejects(pending, /stop/);
    assert.equal(server.requests.length, 1);
  });

  test('bad retry options are refused', () => {
    for (const retry of [{ maxRetries: -1 }, { maxRetries: 1.5 }, { minDelayMs: Number.NaN }, { maxDelayMs: Number.POSITIVE_INFINITY }]) {
      assert.throws(() => new Client(WidgetKind, transport, { retry }), RangeError);
    }
  });
});

describe('retryOnConflict', () => {
  const conflict = (): ApiError => new ApiError({ status: 409, reason: 'Conflict', message: 'the object has been modified' });

  test('calls again after a conflict (client-go DefaultRetry: 10 ms apart, 10% jitter) until it succeeds', async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await retryOnConflict(
      async () => {
        if (++calls < 3) throw conflict();
        return 'written';
      },
      { random: () => 0.5, sleep: async (ms) => void waits.push(ms) },
    );
    assert.equal(result, 'written');
    assert.equal(calls, 3);
    assert.deepEqual(waits, [10.5, 10.5]);
  });

  test('rethrows other errors at once, and the last conflict after `steps` calls', async () => {
    let calls = 0;
    const other = new ApiError({ status: 409, reason: 'AlreadyExists', message: 'exists' });
    await assert.rejects(
      retryOnConflict(async () => {
        calls++;
        throw other;
      }, { sleep: async () => undefined }),
      (err: unknown) => err === other,
    );
    assert.equal(calls, 1, 'AlreadyExists is not a conflict');
    calls = 0;
    await assert.rejects(
      retryOnConflict(async () => {
        calls++;
        throw conflict();
      }, { steps: 3, sleep: async () => undefined }),
      isConflict,
    );
    assert.equal(calls, 3);
    await assert.rejects(retryOnConflict(async () => 1, { steps: 0 }), RangeError);
  });
});
