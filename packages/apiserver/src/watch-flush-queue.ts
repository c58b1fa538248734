/**
 * Defers watch writes to the end of the event-loop turn: a stream with queued lines registers
 * once, and one `setImmediate` (the check phase, after every I/O callback of this turn) flushes
 * every registered stream. All changes applied while handling one turn's requests therefore leave
 * as one write per watcher, as kube-apiserver flushes a watcher only once its channel is empty.
 */

/** Something with lines queued for the end of the turn. */
export interface Flushable {
  flush(): void;
}

let due: Flushable[] = [];
let scheduled = false;

function flushDue(): void {
  scheduled = false;
  const streams = due;
  due = [];
  for (const stream of streams) stream.flush();
}

/** Flushes `stream` at the end of this turn. Call once per turn: when its queue goes from empty to not empty. */
export function flushAtEndOfTurn(stream: Flushable): void {
  due.push(stream);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flushDue);
  }
}
