/**
 * Child process: a loopback server that serves one pre-generated ConfigMap list and watch stream, the way
 * kube-apiserver writes them: one HTTP chunk per watch event (one `res.write` per line), headers flushed
 * at once, the stream kept open after the last event. Every line exists before the first request, so
 * serving costs one write per event. Honors `resourceVersion` (resume), `timeoutSeconds` and list
 * pagination (`limit`, `continue`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BENCH_NAMESPACE } from '../bench-objects.js';
import { onCommand, onStop, runChildMain, sendReady } from '../child-runtime.js';
import { nowSeconds } from '../measure.js';
import { generateWatchStream, lineAt, listPage, type LineBuffer, type WatchStreamSpec } from '../watch-stream.js';

/** What the parent learns when the server is listening. */
export interface StreamServerInfo {
  url: string;
  markerResourceVersion: string;
  listResourceVersion: number;
  meanObjectBytes: number;
  listBytes: number;
  generateSeconds: number;
}

/** Counters the parent can ask for (`stats` command) to check that no consumer re-listed or reconnected. */
export interface StreamServerStats {
  /** List requests (pages). */
  lists: number;
  watches: number;
  eventsWritten: number;
}

const LIST_PATHS = new Set([`/api/v1/namespaces/${BENCH_NAMESPACE}/configmaps`, '/api/v1/configmaps']);

runChildMain<WatchStreamSpec>(async (spec) => {
  const started = nowSeconds();
  const stream = generateWatchStream(spec);
  const generateSeconds = nowSeconds() - started;
  const stats: StreamServerStats = { lists: 0, watches: 0, eventsWritten: 0 };
  const open = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || !LIST_PATHS.has(url.pathname)) {
      notFound(res, url.pathname);
      return;
    }
    const watch = url.searchParams.get('watch');
    if (watch === 'true' || watch === '1') {
      stats.watches++;
      serveWatch(req, res, url);
    } else {
      stats.lists++;
      const limit = Number(url.searchParams.get('limit') ?? '0');
      const from = Number(url.searchParams.get('continue') ?? '0');
      const body = limit > 0 || from > 0 ? listPage(stream.itemJson, stream.listResourceVersion, from, limit > 0 ? from + limit : Infinity) : stream.listBody;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
    }
  });

  function serveWatch(_req: IncomingMessage, res: ServerResponse, url: URL): void {
    const rv = url.searchParams.get('resourceVersion') ?? '';
    const timeoutSeconds = Number(url.searchParams.get('timeoutSeconds') ?? '0');
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    open.add(res);
    let closed = false;
    const deadline =
      timeoutSeconds > 0
        ? setTimeout(() => {
            closed = true;
            res.end();
          }, timeoutSeconds * 1000)
        : undefined;
    res.on('close', () => {
      closed = true;
      open.delete(res);
      if (deadline) clearTimeout(deadline);
    });
    // '' and '0' start with synthetic ADDED events, a number resumes after that resourceVersion.
    const fromScratch = rv === '' || rv === '0';
    const queue: LineBuffer[] = fromScratch ? [stream.addedLines, stream.eventLines] : [stream.eventLines];
    let lines = queue.shift()!;
    let i = fromScratch ? 0 : Math.min(lines.count, Math.max(0, Number(rv) - stream.listResourceVersion));
    const pump = (): void => {
      while (!closed) {
        if (i >= lines.count) {
          const next = queue.shift();
          if (!next) return; // all sent: keep the stream open, as the API server does
          lines = next;
          i = 0;
          continue;
        }
        if (lines === stream.eventLines) stats.eventsWritten++;
        if (!res.write(lineAt(lines, i++))) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  onCommand(async () => stats);
  onStop(async () => {
    for (const res of open) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  await sendReady({
    url: `http://127.0.0.1:${port}`,
    markerResourceVersion: stream.markerResourceVersion,
    listResourceVersion: stream.listResourceVersion,
    meanObjectBytes: stream.meanObjectBytes,
    listBytes: stream.listBody.length,
    generateSeconds,
  } satisfies StreamServerInfo);
  return undefined;
});

function notFound(res: ServerResponse, path: string): void {
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `the bench server does not serve ${path}`,
    reason: 'NotFound',
    code: 404,
  });
  res.writeHead(404, { 'Content-Type': 'application/json' });
  res.end(body);
}
