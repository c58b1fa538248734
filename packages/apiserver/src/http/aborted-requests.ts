/**
 * Requests their clients gave up on before the server read them (an upload cut mid-body: `aborted`,
 * `ECONNRESET`). They are normal on a busy server, so each is counted and the log gets one line at
 * most every {@link abortedLogIntervalMs}, saying how many went since the last line, never a stack.
 */

/** At most one log line per this many milliseconds. */
export const abortedLogIntervalMs = 10_000;

/** True for the error a request's stream gives when its client went away before the body was read. */
export function isClientAbort(err: unknown, req: { readonly destroyed: boolean }): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  return e?.code === 'ECONNRESET' || e?.message === 'aborted' || (req.destroyed && e?.code === 'ERR_STREAM_PREMATURE_CLOSE');
}

/** Counts aborted requests and logs them, rate limited. */
export class AbortedRequests {
  readonly #logger: (line: string) => void;
  readonly #now: () => number;
  #count = 0;
  #unlogged = 0;
  #lastLoggedAt = Number.NEGATIVE_INFINITY;

  /** @param now the clock. Default: `Date.now`. */
  constructor(logger: (line: string) => void, now: () => number = Date.now) {
    this.#logger = logger;
    this.#now = now;
  }

  /** Aborted requests since the server started. */
  get count(): number {
    return this.#count;
  }

  /** Notes one aborted request (`POST /api/v1/...`). */
  note(request: string): void {
    this.#count++;
    this.#unlogged++;
    const now = this.#now();
    if (now - this.#lastLoggedAt < abortedLogIntervalMs) return;
    const others = this.#unlogged - 1;
    this.#logger(`kubeloop-apiserver: a client went away before its request was read: ${request}${others > 0 ? ` (and ${others} more since the last such line)` : ''}`);
    this.#unlogged = 0;
    this.#lastLoggedAt = now;
  }
}
