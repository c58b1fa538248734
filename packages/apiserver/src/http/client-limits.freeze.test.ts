/**
 * What a client can hold on to, measured from outside: the server runs in a child process while
 * clients that never read hold full LISTs of 100 MB and watches from resourceVersion 0. Its memory
 * stays bounded, an unrelated GET is answered meanwhile, and the write timeout cuts the stuck
 * clients. Then the caps: past `maxWatches` or `maxConnections`, 429 with Retry-After while
 * existing clients and writes go on. Loopback only, bounded in count and time.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer, ApiServerConnectionStats, ApiServerOptions } from '../api-server.js';
import { waitFor } from '../testing/eventually.js';
import { RawWatch, call } from '../testing/test-client.js';
import type { MeasureRequest, ServerMeasure } from './limits-server.test-helper.js';

const helperPath = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './limits-server.test-helper.ts' : './limits-server.test-helper.js', import.meta.url));
const nodeArgs = process.execArgv.filter((a) => !a.startsWith('--test'));
const cms = '/api/v1/namespaces/default/configmaps';
const MiB = 1024 * 1024;

/**
 * How much the server's RSS may grow while 10 LISTs and 10 watches of 100 MB are held by clients
 * that never read (README, "Limits and hostile input"). Each holds about one 64 KiB slice and one
 * object in the server; before bounded writing, the same clients took it from 0.3 GB to 3.3 GB.
 */
const maxRssGrowthBytes = 100 * MiB;
/** The longest an unrelated GET may wait meanwhile. */
const probeBoundMs = 100;

/** A server child and its IPC. */
class ServerChild {
  readonly url: string;
  readonly log: string[] = [];
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess, url: string) {
    this.#child = child;
    this.url = url;
    child.stderr?.setEncoding('utf8').on('data', (text: string) => this.log.push(...text.split('\n').filter(Boolean)));
  }

  static async start(options: ApiServerOptions): Promise<ServerChild> {
    const child = fork(helperPath, [JSON.stringify(options)], { execArgv: [...nodeArgs, '--expose-gc'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const [message] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(() => [undefined])])) as [{ url: string } | undefined];
    if (message === undefined) throw new Error('the server child exited before serving');
    return new ServerChild(child, message.url);
  }

  async measure(gc = false): Promise<ServerMeasure> {
    const request: MeasureRequest = { measure: true, gc };
    this.#child.send(request);
    const [reply] = (await once(this.#child, 'message')) as [ServerMeasure];
    return reply;
  }

  stop(): void {
    if (this.#child.exitCode === null) this.#child.kill('SIGKILL');
  }
}

/** A connection that sends one GET and never reads its answer. */
function stuckClient(url: string, path: string): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
  return socket;
}

/** Reads what `socket` still delivers until it closes; resolves with the bytes read. */
async function drain(socket: Socket, timeoutMs: number): Promise<{ bytes: number; closed: boolean }> {
  let bytes = 0;
  socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
  socket.resume();
  // Not `events.once`: it rejects on the socket's 'error', and a reset (ECONNRESET, as Node 24 reports
  // the cut) is what this waits for; 'close' follows it either way.
  const closed = await Promise.race([
    new Promise<boolean>((resolve) => (socket.closed ? resolve(true) : socket.once('close', () => resolve(true)))),
    new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs).unref()),
  ]);
  return { bytes, closed };
}

/** Answers from one GET on a new connection, with the time it took. */
async function timedGet(url: string, path: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(`${url}${path}`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
  return { status, ms: performance.now() - started };
}

describe('clients that never read', () => {
  let server: ServerChild;
  const stuck: Socket[] = [];
  const writeTimeoutMs = 2000;

  before(async () => {
    server = await ServerChild.start({ writeTimeoutMs });
  });
  after(() => {
    for (const socket of stuck) socket.destroy();
    server.stop();
  });

  test('10 full LISTs and 10 watches from 0 of 100 x 1 MB that are never read: bounded memory, other clients answered, the stuck ones cut after the write timeout', async (t) => {
    const value = 'x'.repeat(MiB - 200);
    for (let i = 0; i < 100; i++) {
      const created = await call(server.url, 'POST', cms, { metadata: { name: `big-${i}` }, data: { value } });
      assert.equal(created.status, 201, created.text);
    }
    // A client that reads gets the whole list, streamed, and every initial event.
    const list = await call(server.url, 'GET', '/api/v1/configmaps');
    assert.equal(list.status, 200);
    assert.equal(list.headers['transfer-encoding'], 'chunked');
    assert.deepEqual(
      (list.body as { items: { metadata: { name: string }; data: { value: string } }[] }).items.map((item) => [item.metadata.name, item.data.value.length]).sort(),
      Array.from({ length: 100 }, (_, i) => [`big-${i}`, value.length]).sort(),
    );
    const reader = new RawWatch(`${server.url}/api/v1/configmaps?watch=true&resourceVersion=0`);
    try {
      await reader.waitForEvents(100, 30_000);
      assert.deepEqual(new Set(reader.events.map((e) => e.type)), new Set(['ADDED']));
    } finally {
      reader.close();
    }

    const baseline = (await server.measure(true)).rss;
    const opened = Date.now();
    for (let i = 0; i < 10; i++) stuck.push(stuckClient(server.url, '/api/v1/configmaps'));
    for (let i = 0; i < 10; i++) stuck.push(stuckClient(server.url, '/api/v1/configmaps?watch=true&resourceVersion=0'));

    // Until every stuck client is cut (or a deadline): an unrelated GET, then the server's RSS.
    let worstProbeMs = 0;
    let peakRss = baseline;
    let cutBeforeTimeout = 0;
    let last: ServerMeasure | undefined;
    const deadline = opened + writeTimeoutMs + 15_000;
    while (Date.now() < deadline && (last?.stats.writeTimeouts ?? 0) < 20) {
      const probe = await timedGet(server.url, '/api/v1/namespaces/default');
      assert.equal(probe.status, 200);
      worstProbeMs = Math.max(worstProbeMs, probe.ms);
      last = await server.measure();
      peakRss = Math.max(peakRss, last.rss);
      if (Date.now() - opened < writeTimeoutMs / 2) cutBeforeTimeout = last.stats.writeTimeouts;
      await sleep(20);
    }
    t.diagnostic(`RSS ${(baseline / MiB).toFixed(0)} MiB idle, at most ${(peakRss / MiB).toFixed(0)} MiB with the stuck clients; unrelated GET at worst ${worstProbeMs.toFixed(0)} ms`);
    assert.ok(peakRss - baseline < maxRssGrowthBytes, `RSS grew by ${((peakRss - baseline) / MiB).toFixed(0)} MiB (bound ${maxRssGrowthBytes / MiB} MiB)`);
    assert.ok(worstProbeMs < probeBoundMs, `an unrelated GET took ${worstProbeMs.toFixed(0)} ms`);
    assert.equal(cutBeforeTimeout, 0, 'nobody is cut before the write timeout');
    assert.equal(last?.stats.writeTimeouts, 20);
    assert.ok(
      server.log.some((line) => /cut \d+ client\(s\) that took no bytes for 2000 ms \(write timeout\)/.test(line)),
      server.log.join('\n'),
    );

    // Each stuck client, reading at last, finds its connection reset long before its 100 MB.
    const drained = await Promise.all(stuck.map((socket) => drain(socket, 10_000)));
    for (const { bytes, closed } of drained) {
      assert.equal(closed, true);
      assert.ok(bytes < 50 * MiB, `${bytes} bytes arrived`);
    }
    await waitFor(async () => (await server.measure()).stats.watches === 0, { what: 'no watch left open' });
    const created = await call(server.url, 'POST', cms, { metadata: { name: 'after' } });
    assert.equal(created.status, 201, created.text);
  });
});

/** One request on a connection of `agent` (false: a connection of its own, closed after). */
async function send(agent: Agent | false, url: string, method: string, path: string, body?: unknown): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'content-type': 'application/json' };
    const req = request(`${url}${path}`, { agent, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('a cap on watches', () => {
  let server: ApiServer;
  const watches: RawWatch[] = [];
  const stats = (): ApiServerConnectionStats => server.connectionStats();

  before(async () => {
    server = await startApiServer({ maxWatches: 3 });
  });
  after(async () => {
    for (const w of watches) w.close();
    await server.stop();
  });

  test('past maxWatches a watch is 429 with Retry-After, while open watches get their events and writes succeed', async () => {
    const path = `${cms}?watch=true&resourceVersion=${server.resourceVersion()}`;
    for (let i = 0; i < 3; i++) watches.push(await new RawWatch(`${server.url}${path}`).ready());
    assert.deepEqual(
      watches.map((w) => w.status),
      [200, 200, 200],
    );
    await waitFor(() => stats().watches === 3, { what: '3 watches open' });

    const open = [...watches];
    const refused = await new RawWatch(`${server.url}${path}`).ready();
    watches.push(refused);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '1');
    await waitFor(() => refused.ended, { what: 'the refusal ends' });
    const status = JSON.parse(refused.chunks.join('')) as { reason: string; details: { retryAfterSeconds: number } };
    assert.equal(status.reason, 'TooManyRequests');
    assert.equal(status.details.retryAfterSeconds, 1);
    assert.equal(stats().refusedWatches, 1);

    const created = await call(server.url, 'POST', cms, { metadata: { name: 'while-capped' } });
    assert.equal(created.status, 201, created.text);
    for (const w of open) {
      const events = await w.waitForEvents(1);
      assert.deepEqual([events[0]?.type, events[0]?.object.metadata.name], ['ADDED', 'while-capped']);
    }

    // A closed watch frees its place.
    open[0]?.close();
    await waitFor(() => stats().watches === 2, { what: 'the closed watch forgotten' });
    const again = await new RawWatch(`${server.url}${path}`).ready();
    watches.push(again);
    assert.equal(again.status, 200);
  });
});

describe('a cap on connections', () => {
  let server: ApiServer;
  const agents: Agent[] = [];
  const stats = (): ApiServerConnectionStats => server.connectionStats();

  before(async () => {
    server = await startApiServer({ maxConnections: 6 });
  });
  after(async () => {
    for (const agent of agents) agent.destroy();
    await server.stop();
  });

  test('past maxConnections a new connection is answered 429 with Retry-After and closed, while open ones keep reading and writing', async () => {
    // Six connections, each kept alive by its own agent.
    for (let i = 0; i < 6; i++) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      assert.equal((await send(agent, server.url, 'GET', '/api/v1/namespaces/default')).status, 200);
    }
    assert.equal(stats().connections, 6);

    for (const method of ['GET', 'POST']) {
      const refused = await send(false, server.url, method, cms, method === 'POST' ? { metadata: { name: 'refused' } } : undefined);
      assert.equal(refused.status, 429, method);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.headers.connection, 'close');
      assert.equal((JSON.parse(refused.body) as { reason: string }).reason, 'TooManyRequests');
    }
    assert.equal(stats().refusedConnections, 2);
    await waitFor(() => stats().connections === 6, { what: 'the refused connections closed' });

    // The open connections still read and write.
    const first = agents[0] as Agent;
    assert.equal((await send(first, server.url, 'GET', `${cms}/refused`)).status, 404, 'the refused create did not happen');
    assert.equal((await send(first, server.url, 'POST', cms, { metadata: { name: 'on-an-open-connection' } })).status, 201);

    // A closed connection frees its place.
    (agents[1] as Agent).destroy();
    await waitFor(() => stats().connections === 5, { what: 'a connection closed' });
    assert.equal((await send(false, server.url, 'GET', '/api/v1/namespaces/default')).status, 200);
  });
});
