/**
 * Heap measurements: the peak while a program runs (sampled), and the heap after a full garbage
 * collection (to compare with a baseline). `gc` is reached without `--expose-gc` on the command
 * line, so the test runner needs no flag.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Bytes of heap in use after a full collection (two passes: finalizers free more on the second). */
export function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Samples `heapUsed` every `intervalMs` and keeps the largest. */
export class HeapSampler {
  peak = 0;
  private timer: NodeJS.Timeout | undefined;

  start(intervalMs = 50): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private sample(): void {
    const used = process.memoryUsage().heapUsed;
    if (used > this.peak) this.peak = used;
  }
}

/** `12.3 MB`. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
