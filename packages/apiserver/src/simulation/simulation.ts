/**
 * The cluster around an operator, simulated inside the embedded server: the controllers of
 * kube-controller-manager that make workloads move (Deployments make ReplicaSets make Pods...) and
 * a kubelet per simulated Node that runs Pods through their phases. Like kwok, no container runs;
 * unlike kwok, no kube-apiserver or etcd is needed.
 *
 * Data path: the store hands every applied change to {@link Simulation.observe} (beside the watch
 * hub and the garbage collector); each controller that watches the change's kind maps it to keys
 * and queues them (`simulated-controller.ts`); a queue syncs one key at a time, a `setImmediate`
 * turn after the write that caused it, and writes through the ordinary object paths
 * (`simulated-writes.ts`), so clients see every step as watch events. Timed steps (a Pod's start, a
 * readiness delay, a grace period, a CronJob's schedule) are timers on the simulation's clock.
 */
import { realClock } from '@kubeloop/resource';
import type { ChangeEvent } from '../storage/change-event.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { ObjectService } from '../objects/object-service.js';
import type { ResourceRegistry } from '../types/resource-registry.js';
import { ControllerQueue } from './simulated-controller.js';
import type { SimulatedController } from './simulated-controller.js';
import type { ResolvedSimulation } from './simulate-options.js';
import { simulatedControllers } from './simulated-controllers.js';
import type { SimulationContext } from './simulation-context.js';
import { SimulatedWrites } from './simulated-writes.js';
import { WorkloadFaults } from './kubelet/workload-faults.js';

/** Options of {@link Simulation}. */
export interface SimulationOptions {
  readonly registry: ResourceRegistry;
  readonly store: ObjectStore;
  readonly service: ObjectService;
  readonly settings: ResolvedSimulation;
  readonly caCertificate: string;
  readonly logger: (line: string) => void;
}

/** The running simulation of one server. */
export class Simulation {
  readonly #queues: ControllerQueue[];
  /** Store key -> the queues of the controllers watching it. */
  readonly #byStoreKey = new Map<string, ControllerQueue[]>();
  #idleWaiters: (() => void)[] = [];
  #started = false;
  /** The workload faults (image pull failures, crash loops, NotReady nodes...) the kubelet and node controllers play. */
  readonly workloadFaults: WorkloadFaults;

  constructor(options: SimulationOptions) {
    const ctx: SimulationContext = {
      registry: options.registry,
      store: options.store,
      clock: options.settings.clock ?? realClock,
      writes: new SimulatedWrites(options.service, 'kube-controller-manager'),
      settings: options.settings,
      caCertificate: options.caCertificate,
      logger: options.logger,
      workloadFaults: new WorkloadFaults(),
    };
    this.#queues = simulatedControllers(ctx).map(
      (controller) => new ControllerQueue(controller, { clock: ctx.clock, logger: options.logger, onIdle: () => this.#checkIdle() }),
    );
    this.workloadFaults = ctx.workloadFaults;
    for (const queue of this.#queues) {
      queue.controller.connect?.((key) => {
        if (this.#started) queue.add(key);
      });
      for (const storeKey of queue.controller.watches) {
        const queues = this.#byStoreKey.get(storeKey) ?? [];
        queues.push(queue);
        this.#byStoreKey.set(storeKey, queues);
      }
    }
  }

  /** The simulated controllers, by name (for tests and the status of the dev loop). */
  get controllers(): readonly SimulatedController[] {
    return this.#queues.map((queue) => queue.controller);
  }

  /** Hears one applied change (before `start`, changes are picked up by the initial sync instead). */
  observe(storeKey: string, event: ChangeEvent): void {
    if (!this.#started) return;
    const queues = this.#byStoreKey.get(storeKey);
    if (!queues) return;
    for (const queue of queues) for (const key of queue.controller.keysFor(storeKey, event)) queue.add(key);
  }

  /** Syncs everything stored (after a replay, objects changed while no simulation ran are caught up). */
  start(): void {
    this.#started = true;
    for (const queue of this.#queues) for (const key of queue.controller.initialKeys()) queue.add(key);
  }

  /**
   * Resolves once no controller has work queued or in progress: what the simulation does next waits
   * for a change or for a timer on its clock. For tests that move a virtual clock by hand.
   */
  whenIdle(): Promise<void> {
    if (this.#allIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops every controller: no more work, timers cancelled; resolves once the syncs in progress are done. */
  async stop(): Promise<void> {
    this.#started = false;
    await Promise.all(this.#queues.map((queue) => queue.stop()));
    this.#checkIdle();
  }

  #allIdle(): boolean {
    return this.#queues.every((queue) => queue.idle);
  }

  #checkIdle(): void {
    if (!this.#allIdle() || this.#idleWaiters.length === 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
