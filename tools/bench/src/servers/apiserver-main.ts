/**
 * Child process: the embedded API server (@kubeloop/apiserver) for scenarios 4 and 5.
 * - `serve`: start, report the URL and how long start-up took, serve until stopped; the `cpu` command
 *   answers the CPU seconds the process has used (so that a scenario can charge the server per write).
 * - `startup`: time `import('@kubeloop/apiserver')` and `startApiServer()` (to listening) and the first
 *   request answered, stop, report.
 */
import { request } from 'node:http';
import { onCommand, onStop, runChildMain, sendReady } from '../child-runtime.js';
import { cpuSeconds, nowSeconds } from '../measure.js';

/** Input of the API server child. */
export interface ApiServerChildInput {
  mode: 'serve' | 'startup';
  /** KEP-5866 sharded list and watch (the server's option of that name). Default: the server's default (on). */
  shardedListAndWatch?: boolean | undefined;
}

/** Start-up timings, milliseconds. */
export interface ApiServerStartup {
  importMs: number;
  startMs: number;
  firstRequestMs: number;
}

/** What `serve` reports when ready. */
export interface ApiServerServing extends ApiServerStartup {
  url: string;
}

function firstRequest(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    request(`${url}/api/v1/namespaces/default/configmaps`, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`first request: HTTP ${res.statusCode}`))));
    })
      .on('error', reject)
      .end();
  });
}

runChildMain<ApiServerChildInput>(async (input) => {
  const t0 = nowSeconds();
  const { startApiServer } = await import('@kubeloop/apiserver');
  const t1 = nowSeconds();
  const server = await startApiServer({ port: 0, host: '127.0.0.1', ...(input.shardedListAndWatch === undefined ? {} : { shardedListAndWatch: input.shardedListAndWatch }) });
  const t2 = nowSeconds();
  await firstRequest(server.url);
  const t3 = nowSeconds();
  const startup: ApiServerStartup = { importMs: (t1 - t0) * 1000, startMs: (t2 - t1) * 1000, firstRequestMs: (t3 - t2) * 1000 };
  if (input.mode === 'startup') {
    await server.stop();
    return startup;
  }
  onStop(() => server.stop());
  onCommand(async () => cpuSeconds());
  await sendReady({ ...startup, url: server.url } satisfies ApiServerServing);
  return undefined;
});
