/**
 * The fixture of the workload controllers' tests: a server with the simulation on a VirtualClock and
 * no simulated kubelet, so the test plays the kubelet itself (it writes Pod status through `/status`,
 * as a kubelet does) and sees every step of a rollout.
 */
import assert from 'node:assert/strict';
import { VirtualClock } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { startApiServer } from '../../api-server.js';
import type { ApiServer } from '../../api-server.js';
import { call } from '../../testing/test-client.js';
import type { TestResponse } from '../../testing/test-client.js';

/** A whole second, so condition timestamps (whole seconds) fall on the clock's own instants. */
const startMs = Date.parse('2026-01-01T00:00:00Z');

/** A test's simulated cluster. */
export class SimulatedCluster {
  private constructor(
    readonly server: ApiServer,
    readonly clock: VirtualClock,
  ) {}

  static async start(): Promise<SimulatedCluster> {
    const clock = new VirtualClock(startMs);
    const server = await startApiServer({ simulate: { clock, kubelet: false } });
    return new SimulatedCluster(server, clock);
  }

  req(method: string, path: string, body?: unknown, contentType?: string): Promise<TestResponse> {
    return call(this.server.url, method, path, body, contentType ? { contentType } : undefined);
  }

  /** A request that must answer 2xx; its body. */
  async ok<T = KubeObject>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const res = await this.req(method, path, body, contentType);
    assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.body as T;
  }

  async list<T = KubeObject>(path: string): Promise<T[]> {
    return (await this.ok<{ items: T[] }>('GET', path)).items;
  }

  /** Waits until no simulated controller has work left. */
  settle(): Promise<void> {
    return this.server.simulation!.whenIdle();
  }

  /** Moves simulated time, then settles. */
  async advance(ms: number): Promise<void> {
    await this.clock.advance(ms);
    await this.settle();
  }

  /** Plays the kubelet: the Pod runs and is Ready since the simulation's now. */
  async markReady(namespace: string, name: string): Promise<void> {
    const since = new Date(this.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    const status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: since }] };
    await this.ok('PATCH', `/api/v1/namespaces/${namespace}/pods/${name}/status`, { status }, 'application/merge-patch+json');
  }

  stop(): Promise<void> {
    return this.server.stop();
  }
}
