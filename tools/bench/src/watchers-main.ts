/**
 * Child process: N plain HTTP watches on the `bench` ConfigMaps (from the current resourceVersion),
 * counting the events each receives; the load of scenario 5's "writes/s with 10 watchers attached".
 */
import { get, type ClientRequest } from 'node:http';
import { Agent } from 'node:http';
import { BENCH_NAMESPACE } from './bench-objects.js';
import { onCommand, onStop, runChildMain, sendReady } from './child-runtime.js';
import { expectStatus, sendJson } from './http-json.js';

/** Input of the watchers child. */
export interface WatchersInput {
  url: string;
  watchers: number;
}

/** The `await` command: wait until every watcher has `events` events or `timeoutMs` passed. */
export interface AwaitEvents {
  events: number;
  timeoutMs: number;
}

/** What the watchers child reports. */
export interface WatchersResult {
  /** Events received by each watcher. */
  events: number[];
}

runChildMain<WatchersInput>(async (input) => {
  const base = `${input.url}/api/v1/namespaces/${BENCH_NAMESPACE}/configmaps`;
  const agent = new Agent({ keepAlive: true });
  const list = await sendJson(agent, base, 'GET', undefined);
  expectStatus(list, [200], 'list');
  agent.destroy();
  const rv = (JSON.parse(list.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const counts = new Array<number>(input.watchers).fill(0);
  const requests: ClientRequest[] = [];
  await Promise.all(
    counts.map(
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const req = get(`${base}?watch=true&resourceVersion=${rv}`, (res) => {
            if (res.statusCode !== 200) {
              reject(new Error(`watch: HTTP ${res.statusCode}`));
              return;
            }
            // Count newlines: every event is one line; decoding is the consumers' business, not the server's.
            res.on('data', (chunk: Buffer) => {
              let at = chunk.indexOf(10);
              while (at >= 0) {
                counts[i]!++;
                at = chunk.indexOf(10, at + 1);
              }
            });
            resolve();
          });
          req.on('error', reject);
          requests.push(req);
        }),
    ),
  );
  onCommand(async (value) => {
    const { events, timeoutMs } = value as AwaitEvents;
    const until = Date.now() + timeoutMs;
    while (counts.some((c) => c < events) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    return { events: [...counts] } satisfies WatchersResult;
  });
  onStop(async () => {
    for (const req of requests) req.destroy();
  });
  await sendReady({ watchers: input.watchers });
  return undefined;
});
