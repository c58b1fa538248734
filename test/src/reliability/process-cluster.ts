/**
 * The API server of a process-mode program in a child process (support/server-process.ts) with the
 * Gadget CRD: faults go over IPC, and the restart fault is a real crash, SIGKILL, then a new process
 * on the same data directory and port (fsync on every write: nothing acknowledged may be lost).
 */
import { Client, ConfigMapKind, HttpTransport, ensureCrd } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import type { FaultCommand } from '../support/child-protocol.js';
import { ServerProcess } from '../support/server-process.js';
import { GadgetKind, HISTORY_WINDOW, gadgetCrd } from './cluster.js';
import type { Gadget } from './cluster.js';
import type { ProgramCluster } from './program-target.js';

/** Starts the server of a program in a child process, on `dataDir`. */
export async function clusterInChildProcess(dataDir: string): Promise<ProgramCluster> {
  const server = await ServerProcess.start({ dataDir, historyWindow: HISTORY_WINDOW });
  const transport = new HttpTransport({ server: server.url });
  await ensureCrd(transport, gadgetCrd);
  return {
    gadgets: new Client<Gadget>(GadgetKind, transport),
    configMaps: new Client<ConfigMap>(ConfigMapKind, transport),
    url: server.url,
    fault: (command: FaultCommand) => server.fault(command),
    restart: () => server.restart(),
    stop: async () => {
      transport.close();
      return server.stop();
    },
  };
}
