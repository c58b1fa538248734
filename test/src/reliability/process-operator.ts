/**
 * The operator of a process-mode program in a child process (operator-process-main.ts), stopped at
 * the end as a platform stops a pod: SIGTERM, then it must exit 0 within a bound.
 */
import { fileURLToPath } from 'node:url';
import { LabelSelector } from '@kubeloop/resource';
import { ChildRpc } from '../support/child-rpc.js';
import { WatchedChild, describeExit } from '../support/watched-child.js';
import { HandlerRecord } from './handler-record.js';
import type { ErrorCounts, HandlerUnderTest } from './operator-under-test.js';
import type { HandlerSnapshot, OperatorCommand, OperatorSnapshot } from './process-protocol.js';
import type { ProgramOperator } from './program-target.js';

const MAIN = fileURLToPath(new URL('./operator-process-main.js', import.meta.url));
/** How long a graceful stop may take (the in-flight handler calls finish first). */
const STOP_TIMEOUT_MS = 15_000;

/** Starts the operator of a program in a child process against `url`. */
export async function operatorInChildProcess(url: string): Promise<ProgramOperator> {
  const watched = new WatchedChild('the operator process', MAIN, [url]);
  const rpc = new ChildRpc<OperatorCommand>(watched.child, 'the operator process');
  const informerCount = await rpc.ask<number>({ op: 'informerCount' });
  let last: OperatorSnapshot | undefined;
  const snapshot = async (): Promise<OperatorSnapshot> => {
    last = await rpc.ask<OperatorSnapshot>({ op: 'snapshot' });
    return last;
  };
  return {
    informerCount,
    hasSynced: () => rpc.ask<boolean>({ op: 'hasSynced' }),
    setHandlerDelay: async (ms) => {
      await rpc.ask({ op: 'setHandlerDelay', ms });
    },
    // Once the child is gone, the checks read its last answer (what it had seen when it last spoke).
    handlers: async () => ((watched.running ? await snapshot() : last)?.handlers ?? []).map(handlerFrom),
    errors: async (): Promise<ErrorCounts> => (watched.running ? await snapshot() : last)?.errors ?? {},
    shutdown: async () => {
      const problems: string[] = [];
      if (watched.running) {
        const final = await snapshot().catch(() => undefined);
        if (final?.runError !== undefined) problems.push(`the operator stopped by itself: ${final.runError}`);
      }
      const exit = await watched.stop('SIGTERM', STOP_TIMEOUT_MS);
      if (exit.killedAfterTimeout) problems.push(`the operator process did not exit within ${STOP_TIMEOUT_MS} ms of SIGTERM${watched.stderrTail()}`);
      else if (exit.code !== 0 && watched.problems.length === 0) problems.push(`the operator process exited with ${describeExit(exit.code, exit.signal)} after SIGTERM${watched.stderrTail()}`);
      return [...watched.problems, ...problems];
    },
  };
}

/** A handler record rebuilt from the child's snapshot, for the checks of run-program. */
function handlerFrom(s: HandlerSnapshot): HandlerUnderTest {
  const record = new HandlerRecord(s.name, s.contract);
  record.calls = s.calls;
  record.violations.push(...s.violations);
  for (const [key, entry] of s.view) record.view.set(key, entry);
  for (const [uid, times] of s.deletes) record.deletes.set(uid, times);
  for (const [uid, key] of s.seen) record.seen.set(uid, key);
  return { record, kind: s.kind, finalizer: s.finalizer, selects: s.selects === undefined ? undefined : LabelSelector.parse(s.selects) };
}
