/**
 * What the test of a process-mode program asks its operator child, and the answer: the handlers'
 * records (the server child's faults are support/child-protocol.ts's).
 */
import type { ViewContract, ViewEntry } from './handler-record.js';
import type { ErrorCounts } from './operator-under-test.js';
import type { ObjectKind } from './program.js';

/** What the operator child is asked. */
export type OperatorCommand = { op: 'hasSynced' } | { op: 'informerCount' } | { op: 'setHandlerDelay'; ms: number } | { op: 'snapshot' };

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
