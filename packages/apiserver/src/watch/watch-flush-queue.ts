/**
 * Defers watch writes to the end of the event-loop turn: a stream with queued lines registers
 * once, and one `setImmediate` (the check phase, after every I/O callback of this turn) flushes
 * every registered stream. All changes applied while handling one turn's requests therefore leave
 * as one write per watcher, as kube-apiserver flushes a watcher only once its channel is empty.
 *
 * Watchers that were offered the same changes queue the very same line buffers (each event is
 * encoded once); during a flush round, their batches are joined once and the joined bytes shared.
 */

/** Something with lines queued for the end of the turn. */
export interface Flushable {
  flush(): void;
}

let due: Flushable[] = [];
let scheduled = false;
let flushing = false;
/** The last batch joined in this flush round, and its bytes. */
let lastLines: readonly Buffer[] | undefined;
let lastJoined: Buffer | undefined;

function flushDue(): void {
  scheduled = false;
  const streams = due;
  due = [];
  flushing = true;
  try {
    for (const stream of streams) stream.flush();
  } finally {
    flushing = false;
    lastLines = undefined;
    lastJoined = undefined;
  }
}

/** Flushes `stream` at the end of this turn. Call once per turn: when its queue goes from empty to not empty. */
export function flushAtEndOfTurn(stream: Flushable): void {
  due.push(stream);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flushDue);
  }
}

function sameLines(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The lines as one buffer of `bytes` bytes. Within a flush round, a batch made of the same line
 * buffers as the previous one gets the previous one's bytes rather than a new copy.
 */
export function joinLines(lines: readonly Buffer[], bytes: number): Buffer {
  if (lines.length === 1) return lines[0] as Buffer;
  if (flushing && lastLines !== undefined && lastJoined !== undefined && sameLines(lines, lastLines)) return lastJoined;
  const joined = Buffer.concat(lines, bytes);
  if (flushing) {
    lastLines = lines;
    lastJoined = joined;
  }
  return joined;
}
