/**
 * The freeze probe of the hostile-input tests: while a hostile request runs, GETs on other
 * connections keep asking, from a thread of their own as another process's would, and the longest
 * any of them waited is what the server's event loop was held for. Two clients ask side by side: one on a connection of its own opened before the hostile
 * request (as kubectl's, client-node's and an informer's are: kept alive), whose worst wait is
 * {@link ProbedRequest.worstGetMs}, the number the bound applies to; and one opening a new connection
 * for every GET, which also waits for the server to accept it (a turn of the event loop more).
 * The bound is 100 ms on a quiet 2-core machine; on a loaded one (CI runs test files side by side) it
 * is scaled by how much slower a fixed CPU workload runs than on the quiet machine, at most 5x, so a
 * real freeze (seconds) still fails and load alone does not.
 */
import { on } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { TestResponse } from './testing/test-client.js';

/** The bound on a quiet machine, from the issue that set it. */
export const quietFreezeBoundMs = 100;

/** What the calibration workload takes on a quiet 2-core machine of our CI's kind (measured, median of 5). */
const quietCalibrationMs = 60;

/** What one probed request gave. */
export interface ProbedRequest {
  readonly res: TestResponse;
  /** The longest an unrelated GET waited while the request ran, on a client's open connection. */
  readonly worstGetMs: number;
  /** The same for GETs that each opened a new connection. */
  readonly worstNewConnectionGetMs: number;
  readonly elapsedMs: number;
  /**
   * The freeze bound for the machine as it was just before the request: {@link quietFreezeBoundMs}
   * times the slowdown of a fixed CPU workload against the quiet machine (1 to 5), measured in the
   * probe's thread (its own small heap, unaffected by the server's).
   */
  readonly boundMs: number;
}

/**
 * The probe's clients, run in a worker thread: they time the server as a client in another process
 * would. In the server's own thread a GET due while the server worked would be sent only when the
 * loop came back to the probe's timer, behind any step of the write due at the same time, and
 * would wait for that one too. Posts `{ ready }` once its kept-open connection answered, and
 * `{ open, fresh }` (the worst waits) when told to stop.
 */
const probeWorkerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { Agent, request } = require('node:http');
const url = new URL(workerData.url);
const pauseMs = 2;
const client = new Agent({ keepAlive: true, maxSockets: 1 });
const worst = { open: 0, fresh: 0 };
let done = false;
let ready = false;
const calibrationData = { items: Array.from({ length: 20000 }, (_, i) => ({ name: 'item-' + i, value: i, tags: ['a', 'b', String(i)] })) };
function calibrationRun() {
  const started = performance.now();
  for (let i = 0; i < 3; i++) JSON.parse(JSON.stringify(calibrationData));
  return performance.now() - started;
}
// The median of 5 runs of the workload, after 3 that warm the thread's compiler up.
const calibration = () => Array.from({ length: 8 }, calibrationRun).slice(3).sort((a, b) => a - b)[2];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const get = (agent) => new Promise((resolve, reject) => {
  const req = request({ host: url.hostname, port: url.port, path: '/api/v1/namespaces/default', agent }, (res) => {
    res.resume();
    res.on('end', resolve);
  });
  req.on('error', reject);
  req.end();
});
const before = calibration();
async function probe(agent, which) {
  while (!done) {
    // Timed from when the GET is due.
    const due = performance.now() + pauseMs;
    await sleep(pauseMs);
    await get(agent);
    worst[which] = Math.max(worst[which], performance.now() - due);
    if (agent !== false && !ready) {
      ready = true;
      worst.open = 0;
      worst.fresh = 0;
      parentPort.postMessage({ ready: true });
    }
  }
}
const loops = Promise.all([probe(client, 'open'), probe(false, 'fresh')]);
parentPort.on('message', async () => {
  done = true;
  await loops;
  client.destroy();
  parentPort.postMessage({ open: worst.open, fresh: worst.fresh, calibrationMs: before });
});
`;

/** Runs `hostile` (its body already built) while GETs on other connections keep asking. */
export async function underFreezeProbe(baseUrl: string, hostile: () => Promise<TestResponse>): Promise<ProbedRequest> {
  const worker = new Worker(probeWorkerSource, { eval: true, workerData: { url: baseUrl } });
  try {
    const messages = on(worker, 'message');
    // The probe is running (its connection open) before the hostile request starts.
    await messages.next();
    const started = performance.now();
    const res = await hostile();
    const elapsedMs = performance.now() - started;
    worker.postMessage('stop');
    const [worst] = (await messages.next()).value as [{ open: number; fresh: number; calibrationMs: number }];
    const slowdown = Math.min(5, Math.max(1, worst.calibrationMs / quietCalibrationMs));
    return { res, worstGetMs: worst.open, worstNewConnectionGetMs: worst.fresh, elapsedMs, boundMs: Math.round(quietFreezeBoundMs * slowdown) };
  } finally {
    await worker.terminate();
  }
}
