/**
 * Requests over the IPC channel of a forked child, both ends: {@link ChildRpc} in the test asks and
 * awaits the answer (bounded in time, failing at once if the child is gone); {@link answerRequests}
 * in the child answers, with its channel unref'd.
 */
import type { ChildProcess } from 'node:child_process';
import type { Reply, Request } from './child-protocol.js';

/** How long the test waits for a child's answer. */
const REPLY_TIMEOUT_MS = 15_000;

/** The test's end. */
export class ChildRpc<C> {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();

  constructor(
    private readonly child: ChildProcess,
    private readonly name: string,
  ) {
    child.on('message', (message: Reply) => {
      const waiting = this.pending.get(message.id);
      if (waiting === undefined) return;
      this.pending.delete(message.id);
      clearTimeout(waiting.timer);
      if (message.ok) waiting.resolve(message.result);
      else waiting.reject(new Error(`${this.name}: ${message.error}`));
    });
    child.once('exit', (code, signal) => {
      for (const waiting of this.pending.values()) {
        clearTimeout(waiting.timer);
        waiting.reject(new Error(`${this.name} exited (code ${code}, signal ${signal}) before it answered`));
      }
      this.pending.clear();
    });
  }

  /** Sends `command`, resolves with the child's result. */
  ask<R>(command: C): Promise<R> {
    if (this.child.exitCode !== null || this.child.signalCode !== null || !this.child.connected) {
      return Promise.reject(new Error(`${this.name} is not running`));
    }
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.name} did not answer ${JSON.stringify(command)} within ${REPLY_TIMEOUT_MS} ms`));
      }, REPLY_TIMEOUT_MS);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      const request: Request<C> = { id, command };
      this.child.send(request);
    });
  }
}

/**
 * The child's end: answers every request with `handle`. The channel is unref'd after the listener is
 * added (adding a 'message' listener refs it): it must not keep the child alive.
 */
export function answerRequests<C>(handle: (command: C) => unknown): void {
  process.on('message', (request: Request<C>) => {
    void (async () => {
      let reply: Reply;
      try {
        reply = { id: request.id, ok: true, result: await handle(request.command) };
      } catch (error) {
        reply = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
      }
      if (process.connected) process.send?.(reply);
    })();
  });
  process.channel?.unref();
}
