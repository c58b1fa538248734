/**
 * The embedded API server as a child process of a test, with fault injection over IPC (the
 * `kubeloop-apiserver` CLI has no fault API): on a data directory, fsync on every write (an
 * acknowledged write survives a SIGKILL), on the port it is given. It says where it serves, then
 * applies the faults the test sends. `node server-process-main.js '<ServerChildOptions as JSON>'`.
 */
import { startApiServer } from '@kubeloop/apiserver';
import { answerRequests } from './child-rpc.js';
import type { FaultCommand, ServerChildOptions, ServingMessage } from './child-protocol.js';

const options = JSON.parse(process.argv[2] ?? '{}') as ServerChildOptions;
const server = await startApiServer({ dataDir: options.dataDir, port: options.port, historyWindow: options.historyWindow, fsync: 'always' });

// The test is gone (it crashed or was killed): so is its server.
process.on('disconnect', () => process.exit(0));
answerRequests<FaultCommand>((command) => {
  const faults = server.faults;
  switch (command.op) {
    case 'dropWatches':
      return faults.dropWatches(command.options);
    case 'failNext':
      return faults.failNext(command.rule);
    case 'compact':
      return faults.compact();
    case 'latency':
      return faults.latency(command.ms);
    case 'reset':
      return faults.reset();
  }
});
const serving: ServingMessage = { serving: server.url, kubeconfig: server.kubeconfig };
process.send?.(serving);
