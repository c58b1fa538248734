/**
 * An API server in a child process, for tests that measure it from outside: its memory while
 * clients hold connections, and whether it still answers others. Forked with IPC as
 * `node limits-server.test-helper.js '<ApiServerOptions as JSON>'` (`--expose-gc` lets a
 * baseline be taken after a full collection). It sends `{ url }` once it serves and answers each
 * `{ measure: true, gc?: true }` with a {@link ServerMeasure}; its log lines go to stderr.
 */
import { startApiServer } from '../api-server.js';
import type { ApiServerConnectionStats, ApiServerOptions } from '../api-server.js';

/** What the child reports when asked. */
export interface ServerMeasure {
  /** Resident set size now, bytes. */
  readonly rss: number;
  readonly stats: ApiServerConnectionStats;
}

/** A request of the test. */
export interface MeasureRequest {
  readonly measure: true;
  /** Run a full garbage collection first (for a baseline). */
  readonly gc?: boolean;
}

const options = JSON.parse(process.argv[2] ?? '{}') as ApiServerOptions;
const server = await startApiServer({ ...options, logger: (line) => process.stderr.write(`${line}\n`) });
// The test is gone: so is its server.
process.on('disconnect', () => process.exit(0));
process.on('message', (message: MeasureRequest) => {
  if (message.gc) (globalThis as { gc?: () => void }).gc?.();
  const measure: ServerMeasure = { rss: process.memoryUsage.rss(), stats: server.connectionStats() };
  process.send?.(measure);
});
process.send?.({ url: server.url });
