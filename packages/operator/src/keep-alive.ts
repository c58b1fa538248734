/**
 * What keeps an operator's process alive while it runs.
 *
 * Node ends a process once nothing holds its event loop. The library's timers are unref'd on
 * purpose (a retry or a lease timer left pending must never keep a stopped program, or a test,
 * from exiting), so a running operator whose only pending work is a wait (an informer backing off
 * while the API server is down, a follower sleeping between Lease reads) would hold nothing, and
 * its process would end by itself in the middle of `await operator.run(signal)`.
 *
 * So the runtime, not each timer, holds the loop: every long-running entry point (`Operator.run`
 * and `warmUp`, a controller's `run` and `warmUp`, an informer's `run`, `LeaderElector.run`,
 * `runOperator`) takes a hold for exactly as long as it runs. All holds share one ref'd handle,
 * created with the first and cleared with the last: once everything has stopped, nothing of ours
 * holds the process, so a script or a test that stops its operator exits at once.
 */

/** Longest delay Node accepts for a timer (about 24.8 days); the handle is a hold, not a schedule. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

let holds = 0;
let handle: ReturnType<typeof setInterval> | undefined;

/**
 * Keeps the process alive until the returned function is called (calling it again does nothing).
 * Holds nest: the process may end once every hold is released.
 */
export function holdProcessOpen(): () => void {
  if (holds++ === 0) handle = setInterval(() => undefined, MAX_TIMER_DELAY_MS);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holds === 0) {
      clearInterval(handle);
      handle = undefined;
    }
  };
}

/** Runs `work` with the process held open until it settles. */
export async function whileHoldingProcessOpen<T>(work: () => Promise<T>): Promise<T> {
  const release = holdProcessOpen();
  try {
    return await work();
  } finally {
    release();
  }
}

/** How many holds are taken now (0 once everything has stopped); for tests and diagnostics. */
export function processHolds(): number {
  return holds;
}
