/**
 * Writes a large response as its client takes it. `next` gives the response's next part (a
 * string or bytes, undefined at the end); the pump writes it in slices of at most
 * {@link sliceBytes}, each once the socket has taken the previous one ('drain'), so a response
 * never has more than about one slice waiting in the process, and the kernel is never handed much
 * at once either. The pending slices of every response wait in one queue, and one event-loop turn
 * writes for at most {@link turnBudgetMs} before yielding to other I/O: twenty clients pulling
 * 100 MB lists at once do not hold up an unrelated request. A client that stops reading stops the
 * production; the write timeout (`connection-guard.ts`) then cuts it, and the response's 'close'
 * drops `next`.
 */
import type { ServerResponse } from 'node:http';

/** Largest write of a pumped response (characters of a string part, bytes of a Buffer part). */
export const sliceBytes = 64 * 1024;

/** Milliseconds of response writing one event-loop turn may do before other requests get their turn. */
export const turnBudgetMs = 4;

/** Steps ready to run, oldest first, from `head` on. */
let ready: (() => void)[] = [];
let head = 0;
let scheduled = false;

function runReady(): void {
  scheduled = false;
  const deadline = performance.now() + turnBudgetMs;
  while (head < ready.length) {
    const run = ready[head] as () => void;
    ready[head++] = noop;
    run();
    if (performance.now() >= deadline) break;
  }
  if (head >= ready.length) {
    ready = [];
    head = 0;
  } else if (head > 1024 && head * 2 > ready.length) {
    ready = ready.slice(head);
    head = 0;
  }
  if (head < ready.length) schedule();
}

function noop(): void {}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(runReady);
}

function enqueue(run: () => void): void {
  ready.push(run);
  schedule();
}

/** Where to cut `text` at or before `end` without splitting a UTF-16 surrogate pair. */
function cutAt(text: string, end: number): number {
  if (end >= text.length) return text.length;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** The first slice of `part` and the rest (undefined when none). */
function sliceOf(part: string | Buffer): [string | Buffer, string | Buffer | undefined] {
  if (part.length <= sliceBytes) return [part, undefined];
  if (typeof part === 'string') {
    const cut = cutAt(part, sliceBytes);
    return [part.slice(0, cut), part.slice(cut)];
  }
  return [part.subarray(0, sliceBytes), part.subarray(sliceBytes)];
}

/** A running {@link pumpResponse}. */
export interface Pump {
  /** Stops the pump; returns what is left of the part being written (to be written whole by the caller: a line must not be torn). */
  stop(): string | Buffer | undefined;
}

/**
 * Writes the parts `next` gives to `res`, as the client takes them, then calls `finish` (which
 * ends the response, or goes on otherwise). Nothing is written synchronously: even the first
 * slice waits its turn.
 */
export function pumpResponse(res: ServerResponse, next: () => string | Buffer | undefined, finish: () => void): Pump {
  let stopped = false;
  let rest: string | Buffer | undefined;
  const onClose = (): void => {
    stopped = true;
    rest = undefined;
  };
  res.once('close', onClose);
  const run = (): void => {
    if (stopped) return;
    const part = rest ?? next();
    if (part === undefined) {
      res.off('close', onClose);
      finish();
      return;
    }
    const [slice, remainder] = sliceOf(part);
    rest = remainder;
    res.write(slice);
    whenWritable();
  };
  const queue = (): void => enqueue(run);
  const whenWritable = (): void => {
    if (res.writableNeedDrain) res.once('drain', queue);
    else queue();
  };
  whenWritable();
  return {
    stop() {
      const left = rest;
      stopped = true;
      rest = undefined;
      res.off('close', onClose);
      return left;
    },
  };
}
