/**
 * Child side of the process-per-participant model (see child-process.ts): receive the input, report
 * readiness and results, obey `stop`, and turn any failure into a non-zero exit that the parent sees.
 */
import type { ChildMessage } from './child-process.js';

function send(msg: ChildMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) {
      reject(new Error('not started as a benchmark child (no IPC channel)'));
      return;
    }
    process.send(msg, undefined, {}, (err) => (err ? reject(err) : resolve()));
  });
}

/** Tells the parent that the child is ready (e.g. listening), with details such as the port. */
export function sendReady(value: unknown): Promise<void> {
  return send({ kind: 'ready', value });
}

type CommandHandler = (value: unknown) => Promise<unknown>;
let commandHandler: CommandHandler | undefined;
let stopHandler: (() => Promise<void>) | undefined;

/** Registers the handler of the parent's commands (one at a time). */
export function onCommand(handler: CommandHandler): void {
  commandHandler = handler;
}

/** Registers what to do on `stop` before exiting 0. Default: exit at once. */
export function onStop(handler: () => Promise<void>): void {
  stopHandler = handler;
}

/**
 * Runs a child's main function: waits for the input, runs `main`, sends its result and exits 0.
 * A thrown error is reported to the parent and the child exits 1. A child that serves (returns
 * `undefined` after `sendReady`) keeps running until the parent sends `stop`.
 */
export function runChildMain<I>(main: (input: I) => Promise<unknown>): void {
  const fail = (err: unknown): void => {
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`bench child failed: ${text}\n`);
    void send({ kind: 'error', value: text }).finally(() => process.exit(1));
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  process.on('message', (msg: ChildMessage) => {
    if (msg.kind === 'input') {
      main(msg.value as I).then(async (result) => {
        if (result === undefined) return;
        await send({ kind: 'result', value: result });
        process.exit(0);
      }, fail);
    } else if (msg.kind === 'command') {
      const handler = commandHandler;
      if (!handler) {
        fail(new Error('command received but no handler registered'));
        return;
      }
      handler(msg.value).then((reply) => send({ kind: 'reply', value: reply }), fail);
    } else if (msg.kind === 'stop') {
      (stopHandler ?? (async () => undefined))().then(() => process.exit(0), fail);
    }
  });
  // The parent going away (crash, Ctrl-C) must not leave servers behind.
  process.on('disconnect', () => process.exit(0));
}
