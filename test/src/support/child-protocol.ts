/**
 * The messages between a test and the child processes it forks (an API server, an operator), over
 * Node's IPC channel: each request carries an id, the child answers with the same id. The children
 * unref the channel, so it never keeps a child alive: a child that exits by itself is seen as such.
 */
import type { FailNextRule } from '@kubeloop/apiserver';

/** A request of the test to a child. */
export interface Request<C> {
  id: number;
  command: C;
}

/** A child's answer: the result, or the error's text. */
export type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/** A fault for a server child (a restart is a real restart of the process, not a command). */
export type FaultCommand =
  | { op: 'dropWatches'; options: { midLine?: boolean; graceful?: boolean } }
  | { op: 'failNext'; rule: FailNextRule }
  | { op: 'compact' }
  | { op: 'latency'; ms: number }
  | { op: 'reset' };

/** What a server child says once it serves. */
export interface ServingMessage {
  serving: string;
  /** Kubeconfig YAML for it. */
  kubeconfig: string;
}

/** The options a server child is started with (its one argument, as JSON). */
export interface ServerChildOptions {
  dataDir: string;
  /** 0: a free port. */
  port: number;
  /** Default: the server's. */
  historyWindow?: number | undefined;
}
