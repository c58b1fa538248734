/** In-child measurement: CPU time, wall time and heap after a full GC. */
import { performance } from 'node:perf_hooks';

/** CPU seconds (user + system, all threads) used by this process so far. */
export function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** A monotonic clock in seconds. */
export function nowSeconds(): number {
  return performance.now() / 1000;
}

/** Milliseconds since the epoch with sub-millisecond precision, comparable across processes of one machine. */
export function epochMillis(): number {
  return performance.timeOrigin + performance.now();
}

/** A point in time: wall and CPU. */
export interface Mark {
  wall: number;
  cpu: number;
}

/** The current wall and CPU time. */
export function mark(): Mark {
  return { wall: nowSeconds(), cpu: cpuSeconds() };
}

/**
 * Heap in use after a full GC. Leaves the current I/O callback first (a timer turn and an immediate
 * turn), because a response body still on the stack of the callback that delivered it would stay alive
 * and be counted. Needs `node --expose-gc`.
 */
export async function heapAfterGc(): Promise<number> {
  const gc = globalThis.gc;
  if (!gc) throw new Error('heapAfterGc needs node --expose-gc');
  await new Promise((resolve) => setTimeout(resolve, 0));
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return process.memoryUsage().heapUsed;
}

/** The peak resident set size of this process so far, bytes. */
export function maxRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}
