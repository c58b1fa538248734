/**
 * The API server a reliability program runs against: the embedded server over real HTTP on
 * 127.0.0.1, persisted in a data directory so that the restart fault (stop, start again on the same
 * directory and port) keeps every object, and the Gadget CRD (a status subresource) installed.
 */
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer, Faults } from '@kubeloop/apiserver';
import { Client, ConfigMapKind, CustomResourceDefinitionKind, HttpTransport, defineKind, isNotFound } from '@kubeloop/resource';
import type { ConfigMap, KubeObject } from '@kubeloop/resource';
import { testCrd } from '../support/crd.js';
import { waitFor } from '../support/wait-for.js';

/** The namespace every program writes in. */
export const NAMESPACE = 'default';

/** Changes of watch history the server keeps per kind. */
const HISTORY_WINDOW = 1000;

/** A Gadget: spec and status each hold one number. */
export type Gadget = KubeObject<{ value: number }, { value?: number }>;

/** The custom kind of the suite. */
export const GadgetKind = defineKind<{ value: number }, { value?: number }>({ group: 'reliability.kubeloop.dev', version: 'v1', kind: 'Gadget' });

const gadgetCrd = testCrd({ group: 'reliability.kubeloop.dev', kind: 'Gadget', spec: { value: { type: 'integer' } }, status: { value: { type: 'integer' } } });

/** A server that can be restarted on its data directory, and clients that follow it. */
export class ReliabilityCluster {
  /** Clients of the program (and of the checks). */
  readonly gadgets: Client<Gadget>;
  readonly configMaps: Client<ConfigMap>;
  /** The transport of those clients (close it with {@link stop}). */
  readonly transport: HttpTransport;
  private current: ApiServer;
  private readonly dataDir: string;
  private readonly port: number;
  /** Restarts so far. */
  restarts = 0;

  private constructor(server: ApiServer, dataDir: string) {
    this.current = server;
    this.dataDir = dataDir;
    this.port = Number(new URL(server.url).port);
    this.transport = new HttpTransport({ server: server.url });
    this.gadgets = new Client(GadgetKind, this.transport);
    this.configMaps = new Client(ConfigMapKind, this.transport);
  }

  /**
   * Starts a server persisted in `dataDir` (fsync on every write: an acknowledged write survives the
   * restart) and installs the CRD. Watch history is kept for the last {@link HISTORY_WINDOW} changes
   * per kind (default 10000): a bound on the server's memory in a long soak, far more than a program needs.
   */
  static async start(dataDir: string): Promise<ReliabilityCluster> {
    const server = await startApiServer({ dataDir, historyWindow: HISTORY_WINDOW });
    const cluster = new ReliabilityCluster(server, dataDir);
    await new Client(CustomResourceDefinitionKind, cluster.transport).create(gadgetCrd);
    const served = async (): Promise<boolean> => {
      try {
        await cluster.gadgets.list(NAMESPACE, { limit: 1 });
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    };
    await waitFor(served, { timeoutMs: 10_000, what: 'the Gadget kind to be served' });
    return cluster;
  }

  /** `http://127.0.0.1:<port>`; the same across restarts. */
  get url(): string {
    return this.current.url;
  }

  /** Fault injection of the running server. */
  get faults(): Faults {
    return this.current.faults;
  }

  /** Stops the server (watches end, connections close) and starts it again on the same data directory and port. */
  async restart(): Promise<void> {
    await this.current.stop();
    this.current = await startApiServer({ dataDir: this.dataDir, port: this.port, historyWindow: HISTORY_WINDOW });
    this.restarts++;
  }

  /** Closes the clients and stops the server. */
  async stop(): Promise<void> {
    this.transport.close();
    await this.current.stop();
  }
}
