/** Test support: run a controller (or anything with `run(signal)`) in the background until the test stops it. */

/** Something that runs until its signal aborts: a controller, an Operator, an informer. */
export interface Runnable {
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Starts `runnable.run()` and returns `stop`, which aborts its signal and resolves (or rejects) as
 * `run()` does once it has returned.
 */
export function runUntilStopped(runnable: Runnable): () => Promise<void> {
  const abort = new AbortController();
  const running = runnable.run(abort.signal);
  return async () => {
    abort.abort();
    await running;
  };
}
