/** Support for the simulated kubelet's tests: a server on a VirtualClock, moved step by step. Not part of the public API. */
import assert from 'node:assert/strict';
import { VirtualClock } from '@kubeloop/resource';
import { advanceSimulation } from '../../testing/simulated-time.js';
import { startApiServer } from '../../api-server.js';
import type { ApiServer, ServerSimulation } from '../../api-server.js';
import type { SimulatedKubeletOptions } from '../simulate-options.js';
import { call } from '../../testing/test-client.js';
import type { TestResponse } from '../../testing/test-client.js';

/** 2026-01-01T00:00:00Z: the simulated clock starts on a whole second. */
export const simulationStart = Date.parse('2026-01-01T00:00:00Z');

/** A server with a simulated cluster on a VirtualClock. */
export interface SimulatedServer {
  readonly server: ApiServer;
  readonly simulation: ServerSimulation;
  readonly clock: VirtualClock;
  /** Moves simulated time by `ms`, timer by timer, letting the simulation settle after each. */
  advance(ms: number): Promise<void>;
  /** Simulated ms since {@link simulationStart}. */
  elapsed(): number;
  call(method: string, path: string, body?: unknown, options?: { contentType?: string }): Promise<TestResponse>;
  /** GET of a Pod in `default` (the body; undefined when 404). */
  pod(name: string): Promise<PodJson | undefined>;
  stop(): Promise<void>;
}

/** The Pod fields the tests read. */
export interface PodJson {
  metadata: { name: string; uid: string; deletionTimestamp?: string; deletionGracePeriodSeconds?: number; [key: string]: unknown };
  spec: { nodeName?: string; [key: string]: unknown };
  status: {
    phase?: string;
    podIP?: string;
    hostIP?: string;
    startTime?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
    containerStatuses?: ContainerStatusJson[];
    initContainerStatuses?: ContainerStatusJson[];
  };
}

/** A container status as the tests read it. */
export interface ContainerStatusJson {
  name: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  imageID: string;
  containerID?: string;
  state: { waiting?: { reason: string; message?: string }; running?: { startedAt: string }; terminated?: { exitCode: number; reason: string } };
  lastState: { terminated?: { exitCode: number; reason: string } };
}

/** Starts a server with `simulate: { clock }` (and the kubelet options) and waits until its Nodes are up. */
export async function startSimulatedServer(kubelet: SimulatedKubeletOptions = {}): Promise<SimulatedServer> {
  const clock = new VirtualClock(simulationStart);
  const server = await startApiServer({ simulate: { clock, kubelet } });
  const simulation = server.simulation;
  assert.ok(simulation);
  const advance = (ms: number): Promise<void> => advanceSimulation({ server }, clock, ms);
  await simulation.whenIdle();
  return {
    server,
    simulation,
    clock,
    advance,
    elapsed: () => clock.now() - simulationStart,
    call: (method, path, body, options) => call(server.url, method, path, body, options),
    async pod(name) {
      const res = await call(server.url, 'GET', `/api/v1/namespaces/default/pods/${name}`);
      if (res.status === 404) return undefined;
      assert.equal(res.status, 200, res.text);
      return res.body as PodJson;
    },
    stop: () => server.stop(),
  };
}

/** A Pod of one container `app` (image nginx:1.27) in `default`, with `extra` merged into its spec. */
export function podManifest(name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec } };
}

/** Creates a Pod in `default` and lets the simulation settle. */
export async function createPod(cluster: SimulatedServer, manifest: Record<string, unknown>): Promise<PodJson> {
  const res = await cluster.call('POST', '/api/v1/namespaces/default/pods', manifest);
  assert.equal(res.status, 201, res.text);
  await cluster.simulation.whenIdle();
  return res.body as PodJson;
}

/** The status of a Pod condition (`True`/`False`), or undefined. */
export function conditionOf(pod: PodJson | undefined, type: string): { status: string; reason?: string; message?: string; lastTransitionTime?: string } | undefined {
  return pod?.status.conditions?.find((c) => c.type === type);
}
