/**
 * Child process: a loopback server that serves one pre-generated ConfigMap list and watch stream, the way
 * kube-apiserver writes them: one HTTP chunk per watch event (one `res.write` per line), headers flushed
 * at once, the stream kept open after the last event. Every line exists before the first request, so
 * serving costs one write per event. Honors `resourceVersion` (resume), `timeoutSeconds` and list
 * pagination (`limit`, `continue`).
 *
 * Paced mode (`pacedRate`, for the scale scenario): a watch gets its headers, then nothing until the
 * parent's `start` command; from then on the events go out at `pacedRate` per second on a fixed schedule,
 * each stamped with the time it is written (see `stampSentAt`), whether or not the consumer keeps up.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BENCH_NAMESPACE } from '../bench-objects.js';
import { onCommand, onStop, runChildMain, sendReady } from '../child-runtime.js';
import { epochMillis, nowSeconds } from '../measure.js';
import { percentile } from '../stats.js';
import { generateWatchStream, lineAt, listPage, stampSentAt, type LineBuffer, type WatchStreamSpec } from '../watch-stream.js';

/** What the parent learns when the server is listening. */
export interface StreamServerInfo {
  url: string;
  markerResourceVersion: string;
  listResourceVersion: number;
  meanObjectBytes: number;
  listBytes: number;
  generateSeconds: number;
}

/** Input of the stream server child. */
export interface StreamServerInput extends WatchStreamSpec {
  /** Paced mode: events per second, sent from the `start` command on. Default: unpaced, as fast as the socket takes them. */
  pacedRate?: number | undefined;
}

/** The commands of the stream server child. */
export type StreamServerCommand = 'stats' | 'start';

/** How well the server kept to the schedule of the last paced stream. */
export interface PacedStreamStats {
  events: number;
  /** How late events were written against their schedule (the server's own delay, not the consumer's). */
  lateP99Ms: number;
  lateMaxMs: number;
  /** The most bytes waiting in the socket's buffer at once: large when the consumer fell behind. */
  maxBufferedBytes: number;
}

/** Counters the parent can ask for (`stats` command) to check that no consumer re-listed or reconnected. */
export interface StreamServerStats {
  /** List requests (pages). */
  lists: number;
  watches: number;
  eventsWritten: number;
  /** The last paced stream, once it has sent its last event. */
  paced?: PacedStreamStats | undefined;
}

/** A paced watch waiting for the `start` command. */
interface WaitingWatch {
  res: ServerResponse;
  /** Index of the first event line to send (after the watch's resourceVersion). */
  from: number;
  isClosed(): boolean;
}

/** How long `start` waits for the consumer's watch request to arrive. */
const START_WAIT_MS = 30_000;

const LIST_PATHS = new Set([`/api/v1/namespaces/${BENCH_NAMESPACE}/configmaps`, '/api/v1/configmaps']);

runChildMain<StreamServerInput>(async (spec) => {
  const started = nowSeconds();
  const stream = generateWatchStream(spec);
  const generateSeconds = nowSeconds() - started;
  const stats: StreamServerStats = { lists: 0, watches: 0, eventsWritten: 0 };
  const open = new Set<ServerResponse>();
  const waiting: WaitingWatch[] = [];

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
    if (spec.pacedRate !== undefined) {
      if (fromScratch) {
        res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'the paced bench stream needs a resourceVersion', code: 400 } })}\n`);
        return;
      }
      waiting.push({ res, from: Math.min(stream.eventLines.count, Math.max(0, Number(rv) - stream.listResourceVersion)), isClosed: () => closed });
      return;
    }
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

  /** Sends the events of `watch` on schedule, each stamped as it is written; records the server's own lateness. */
  function pace(watch: WaitingWatch, rate: number): void {
    const lines = stream.eventLines;
    const t0 = nowSeconds();
    const late: number[] = [];
    let maxBufferedBytes = 0;
    let i = watch.from;
    const dueAt = (index: number): number => t0 + (index - watch.from) / rate;
    const tick = (): void => {
      if (watch.isClosed()) return;
      const now = nowSeconds();
      while (i < lines.count && dueAt(i) <= now) {
        late.push((now - dueAt(i)) * 1000);
        stats.eventsWritten++;
        watch.res.write(stampSentAt(lineAt(lines, i++), epochMillis()));
        maxBufferedBytes = Math.max(maxBufferedBytes, watch.res.writableLength);
      }
      if (i < lines.count) setTimeout(tick, Math.max(0, (dueAt(i) - nowSeconds()) * 1000));
      else stats.paced = { events: late.length, lateP99Ms: percentile(late, 99), lateMaxMs: Math.max(...late), maxBufferedBytes };
    };
    tick();
  }

  /** The `start` command: paces the newest open watch, waiting for one to arrive if need be. */
  async function startPaced(rate: number): Promise<void> {
    const deadline = nowSeconds() + START_WAIT_MS / 1000;
    for (;;) {
      const watch = waiting.filter((w) => !w.isClosed()).pop();
      if (watch) {
        waiting.length = 0;
        stats.paced = undefined;
        pace(watch, rate);
        return;
      }
      if (nowSeconds() > deadline) throw new Error(`start: no watch arrived within ${START_WAIT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  onCommand(async (command) => {
    if ((command as StreamServerCommand) !== 'start') return stats;
    if (spec.pacedRate === undefined) throw new Error('start: the server was not started in paced mode');
    await startPaced(spec.pacedRate);
    return undefined;
  });
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
