/**
 * Resolves in the next turn of the event loop (`setImmediate`: after the I/O callbacks that are due),
 * so that a long piece of work split at this point lets other clients' requests through.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
