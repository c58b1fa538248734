/**
 * The pause between two steps of a large (stepwise) write, whose steps each hold the event loop for
 * tens of milliseconds. One `setImmediate` turn is not enough for a client on a new connection: its
 * connection is accepted in one turn and its request read in a later one, so it would wait through
 * two or three steps. Waiting a millisecond lets the loop turn as often as that takes (it polls for
 * I/O meanwhile), for a millisecond or so per step of the write.
 */
export function betweenWriteSteps(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1));
}
