/**
 * The API server of a process-mode program, as a child process of the test: the embedded server on
 * the data directory and port it is given (port 0: a free one), with the Gadget CRD, fsync on every
 * write (an acknowledged write survives a SIGKILL). It says where it serves, then applies the faults
 * the test sends. `node cluster-process-main.js <dataDir> <port>`.
 */
import { startApiServer } from '@kubeloop/apiserver';
import { HttpTransport, ensureCrd } from '@kubeloop/resource';
import { answerRequests } from './child-rpc.js';
import { HISTORY_WINDOW, gadgetCrd } from './cluster.js';
import type { FaultCommand, ServingMessage } from './process-protocol.js';

const [dataDir, port] = process.argv.slice(2);
if (dataDir === undefined || port === undefined) throw new Error('usage: cluster-process-main.js <dataDir> <port>');

const server = await startApiServer({ dataDir, port: Number(port), historyWindow: HISTORY_WINDOW, fsync: 'always' });
const transport = new HttpTransport({ server: server.url });
await ensureCrd(transport, gadgetCrd);
transport.close();

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
const serving: ServingMessage = { serving: server.url };
process.send?.(serving);
