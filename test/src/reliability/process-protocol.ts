/**
 * The messages between a process-mode program and its two child processes (the API server and the
 * operator), over Node's IPC channel. Each request carries an id; the child answers with the same id.
 * The children unref the channel: it never keeps a child alive, so a child that exits by itself
 * while it only waits is seen as such.
 */
import type { FailNextRule } from '@kubeloop/apiserver';
import type { ViewContract, ViewEntry } from './handler-record.js';
import type { ErrorCounts } from './operator-under-test.js';
import type { ObjectKind } from './program.js';

/** A fault of the server child (the restart fault is a real restart of the process: not here). */
export type FaultCommand =
  | { op: 'dropWatches'; options: { midLine?: boolean; graceful?: boolean } }
  | { op: 'failNext'; rule: FailNextRule }
  | { op: 'compact' }
  | { op: 'latency'; ms: number }
  | { op: 'reset' };

/** What the operator child is asked. */
export type OperatorCommand = { op: 'hasSynced' } | { op: 'informerCount' } | { op: 'setHandlerDelay'; ms: number } | { op: 'snapshot' };

/** A request of the test to a child. */
export interface Request<C> {
  id: number;
  command: C;
}

/** A child's answer: the result, or the error's text. */
export type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/** What a server child says once it serves. */
export interface ServingMessage {
  serving: string;
}

/** A handler's record, as it crosses the process boundary (Maps as entry lists, the selector as text). */
export interface HandlerSnapshot {
  name: string;
  kind: ObjectKind;
  contract: ViewContract;
  finalizer: string | undefined;
  selects: string | undefined;
  calls: number;
  violations: string[];
  view: [string, ViewEntry][];
  deletes: [string, number][];
  seen: [string, string][];
}

/** The operator child's answer to `snapshot`. */
export interface OperatorSnapshot {
  handlers: HandlerSnapshot[];
  errors: ErrorCounts;
  /** The operator's run ended by itself (an operator must not stop until told): why. */
  runError: string | undefined;
}
