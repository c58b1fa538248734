/**
 * The API server a reliability program runs against: the embedded server over real HTTP on
 * 127.0.0.1, persisted in a data directory so that the restart fault (stop, start again on the same
 * directory and port) keeps every object, and the Gadget CRD (a status subresource) installed.
 */
import { startTestEnv } from '@kubeloop/apiserver/testing';
import type { Faults, TestEnv } from '@kubeloop/apiserver/testing';
import { ConfigMapKind, defineKind } from '@kubeloop/resource';
import type { Client, ConfigMap, HttpTransport, KubeObject } from '@kubeloop/resource';
import { testCrd } from '../support/crd.js';

/** The namespace every program writes in. */
export const NAMESPACE = 'default';

/** Changes of watch history the server keeps per kind. */
export const HISTORY_WINDOW = 1000;

/** A Gadget: spec and status each hold one number. */
export type Gadget = KubeObject<{ value: number }, { value?: number }>;

/** The custom kind of the suite. */
export const GadgetKind = defineKind<{ value: number }, { value?: number }>({ group: 'reliability.kubeloop.dev', version: 'v1', kind: 'Gadget' });

export const gadgetCrd = testCrd({ group: 'reliability.kubeloop.dev', kind: 'Gadget', spec: { value: { type: 'integer' } }, status: { value: { type: 'integer' } } });

/** A server that can be restarted on its data directory, and clients that follow it: the test kit's environment. */
export class ReliabilityCluster {
  /** Clients of the program (and of the checks). */
  readonly gadgets: Client<Gadget>;
  readonly configMaps: Client<ConfigMap>;
  /** The transport of those clients (closed by {@link stop}). */
  readonly transport: HttpTransport;
  private readonly env: TestEnv;
  /** Restarts so far. */
  restarts = 0;

  private constructor(env: TestEnv) {
    this.env = env;
    this.transport = env.transport;
    this.gadgets = env.client(GadgetKind);
    this.configMaps = env.client(ConfigMapKind);
  }

  /**
   * Starts a server persisted in `dataDir` (fsync on every write: an acknowledged write survives the
   * restart) with the CRD served. Watch history is kept for the last {@link HISTORY_WINDOW} changes
   * per kind (default 10000): a bound on the server's memory in a long soak, far more than a program needs.
   */
  static async start(dataDir: string): Promise<ReliabilityCluster> {
    return new ReliabilityCluster(await startTestEnv({ crds: [gadgetCrd], server: { dataDir, historyWindow: HISTORY_WINDOW } }));
  }

  /** `http://127.0.0.1:<port>`; the same across restarts. */
  get url(): string {
    return this.env.url;
  }

  /** Fault injection of the running server. */
  get faults(): Faults {
    return this.env.faults;
  }

  /** Stops the server (watches end, connections close) and starts it again on the same data directory and port. */
  async restart(): Promise<void> {
    await this.env.restart();
    this.restarts++;
  }

  /** Closes the clients and stops the server (the data directory stays). */
  async stop(): Promise<void> {
    await this.env.stop();
  }
}
