/**
 * The operator of a process-mode program, as users deploy it: its own process, stopped by SIGTERM
 * (`shutdownSignal`), nothing else holding its event loop (the IPC channel to the test is unref'd).
 * It answers the test's questions about its handlers' records. Exit code 0 after a clean stop, 1 if the
 * operator's run failed. `node operator-process-main.js <server url>`.
 */
import { shutdownSignal } from '@kubeloop/operator';
import { answerRequests } from '../support/child-rpc.js';
import { OperatorUnderTest } from './operator-under-test.js';
import type { HandlerUnderTest } from './operator-under-test.js';
import type { HandlerSnapshot, OperatorCommand, OperatorSnapshot } from './process-protocol.js';

const [url] = process.argv.slice(2);
if (url === undefined) throw new Error('usage: operator-process-main.js <server url>');

const operator = new OperatorUnderTest(url);
const stop = shutdownSignal({ onSignal: () => undefined });
process.on('disconnect', () => process.exit(0));
answerRequests<OperatorCommand>((command): unknown => {
  switch (command.op) {
    case 'hasSynced':
      return operator.hasSynced();
    case 'informerCount':
      return operator.informerCount;
    case 'setHandlerDelay':
      operator.handlerDelayMs = command.ms;
      return undefined;
    case 'snapshot':
      return snapshot();
  }
});
operator.start(stop.signal);
await operator.finished();
await operator.shutdown();
stop.dispose();
process.exitCode = operator.runError === undefined ? 0 : 1;

function snapshot(): OperatorSnapshot {
  const error = operator.runError;
  const runError = error === undefined ? undefined : error instanceof Error ? error.message : JSON.stringify(error);
  return { handlers: operator.handlers.map(handlerSnapshot), errors: operator.errors, runError };
}

function handlerSnapshot(handler: HandlerUnderTest): HandlerSnapshot {
  const { record } = handler;
  return {
    name: record.name,
    kind: handler.kind,
    contract: record.contract,
    finalizer: handler.finalizer,
    selects: handler.selects?.toString(),
    calls: record.calls,
    violations: record.violations,
    view: [...record.view],
    deletes: [...record.deletes],
    seen: [...record.seen],
  };
}
