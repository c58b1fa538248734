/**
 * The per-call deadline of `InformerControllerConfig.handlerTimeoutMs`: a handler call gets a signal
 * of its own, aborted at the deadline (or when the controller stops), and is given up on then.
 */
import type { Clock, Timer } from '../clock.js';
import { HandlerTimeoutError } from '../errors.js';
import type { HandlerContext } from '../handlers/resource-watcher.js';

/**
 * Calls `call` with a context whose signal aborts when `parent`'s does or after `timeoutMs`. A
 * synchronous result or throw is returned as is. A promise that has not settled by the deadline:
 * the signal is aborted with a {@link HandlerTimeoutError}, and the returned promise rejects with it
 * at once, whether or not the handler stops (what it does later is ignored).
 */
export function callWithTimeout<R>(parent: HandlerContext, timeoutMs: number, clock: Clock, call: (ctx: HandlerContext) => Promise<R> | R): Promise<R> | R {
  const deadline = new AbortController();
  const signal = AbortSignal.any([parent.signal, deadline.signal]);
  const result = call({ signal, isInInitialList: parent.isInInitialList, stillOwned: parent.stillOwned, get logger() { return parent.logger; } });
  if (typeof (result as { then?: unknown } | null | undefined)?.then !== 'function') return result;
  let timer: Timer | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = clock.setTimer(timeoutMs, () => {
      const error = new HandlerTimeoutError(timeoutMs);
      deadline.abort(error);
      reject(error);
    });
  });
  // The handler's own outcome after the deadline is ignored (and never an unhandled rejection).
  return Promise.race([result as Promise<R>, expired]).finally(() => timer?.cancel());
}
