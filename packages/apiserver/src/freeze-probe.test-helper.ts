/**
 * The freeze probe of the hostile-input tests: while a hostile request runs, GETs on other
 * connections keep asking, and the longest any of them waited is what the server's event loop was
 * held for. Two clients ask side by side: one on a connection of its own opened before the hostile
 * request (as kubectl's, client-node's and an informer's are: kept alive), whose worst wait is
 * {@link ProbedRequest.worstGetMs}, the number the bound applies to; and one opening a new connection
 * for every GET, which also waits for the server to accept it (a turn of the event loop more).
 * The bound is 100 ms on a quiet 2-core machine; on a loaded one (CI runs test files side by side) it
 * is scaled by how much slower a fixed CPU workload runs than on the quiet machine, at most 5x, so a
 * real freeze (seconds) still fails and load alone does not.
 */
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestResponse } from './testing/test-client.js';

/** The bound on a quiet machine, from the issue that set it. */
export const quietFreezeBoundMs = 100;

/** What the calibration workload takes on a quiet 2-core machine of our CI's kind (measured, median of 5). */
const quietCalibrationMs = 60;

const calibrationData = { items: Array.from({ length: 20_000 }, (_, i) => ({ name: `item-${i}`, value: i, tags: ['a', 'b', String(i)] })) };

function calibrationRun(): number {
  const started = performance.now();
  for (let i = 0; i < 3; i++) JSON.parse(JSON.stringify(calibrationData));
  return performance.now() - started;
}

/** The freeze bound for this machine now: {@link quietFreezeBoundMs} times the measured slowdown (1 to 5). */
export function freezeBoundMs(): number {
  const runs = Array.from({ length: 5 }, calibrationRun).sort((a, b) => a - b);
  const slowdown = Math.min(5, Math.max(1, (runs[2] ?? quietCalibrationMs) / quietCalibrationMs));
  return Math.round(quietFreezeBoundMs * slowdown);
}

/** A GET on the given agent's connection, or on a new one (`false`); never queued behind the hostile request's. */
function timedGet(url: URL, agent: Agent | false): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: '/api/v1/namespaces/default', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
}

/** What one probed request gave. */
export interface ProbedRequest {
  readonly res: TestResponse;
  /** The longest an unrelated GET waited while the request ran, on a client's open connection. */
  readonly worstGetMs: number;
  /** The same for GETs that each opened a new connection. */
  readonly worstNewConnectionGetMs: number;
  readonly elapsedMs: number;
}

/** Runs `hostile` (its body already built) while GETs on other connections keep asking. */
export async function underFreezeProbe(baseUrl: string, hostile: () => Promise<TestResponse>): Promise<ProbedRequest> {
  const url = new URL(baseUrl);
  const client = new Agent({ keepAlive: true, maxSockets: 1 });
  const worst = { open: 0, fresh: 0 };
  let done = false;
  let probes = 0;
  const pauseMs = 2;
  const probe = async (agent: Agent | false, which: keyof typeof worst): Promise<void> => {
    while (!done) {
      // Timed from when the GET is due: a server blocked during the pause delays it as well.
      const due = performance.now() + pauseMs;
      await sleep(pauseMs);
      await timedGet(url, agent);
      worst[which] = Math.max(worst[which], performance.now() - due);
      if (agent !== false) probes++;
    }
  };
  const loops = Promise.all([probe(client, 'open'), probe(false, 'fresh')]);
  // The probe is running (its connection open) before the hostile request starts.
  while (probes === 0) await sleep(1);
  worst.open = 0;
  worst.fresh = 0;
  const started = performance.now();
  const res = await hostile();
  const elapsedMs = performance.now() - started;
  done = true;
  await loops;
  client.destroy();
  return { res, worstGetMs: worst.open, worstNewConnectionGetMs: worst.fresh, elapsedMs };
}
