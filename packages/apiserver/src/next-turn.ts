/** Resolves on the next `setImmediate` turn: after the I/O callbacks waiting now (requests are served meanwhile). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
