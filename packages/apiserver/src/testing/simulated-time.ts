/**
 * Moving a simulated cluster's time by hand in a test: the simulation runs on a `VirtualClock`
 * (`startTestEnv({ simulate: { clock } })`), and `advanceSimulation` moves it timer by timer,
 * letting the simulated controllers finish what each timer started before the next one fires, so a
 * Pod started at t=1 s and Ready 5 s later is Ready after `advanceSimulation(env, 6_000)` whatever
 * the order its steps were scheduled in. No test waits for simulated time in real time.
 */
import { VirtualClock } from '@kubeloop/resource';
import type { ApiServer } from '../api-server.js';

/** Where the simulation runs: a test environment or a server started with `simulate`. */
export interface SimulatedTarget {
  readonly server: ApiServer;
}

/**
 * Moves `clock` forward by `ms`, one due timer at a time, waiting after each for the simulation to
 * be idle (no controller with work queued or in progress). Rejects when `target`'s server has no
 * simulation. Use the same `VirtualClock` the simulation was started with.
 */
export async function advanceSimulation(target: SimulatedTarget, clock: VirtualClock, ms: number): Promise<void> {
  if (!(clock instanceof VirtualClock)) throw new TypeError('advanceSimulation needs the VirtualClock the simulation runs on');
  const idle = (): Promise<void> => {
    const simulation = target.server.simulation;
    if (!simulation) throw new Error('advanceSimulation: the server runs no simulation: start it with simulate: { clock }');
    return simulation.whenIdle();
  };
  const until = clock.now() + ms;
  await idle();
  for (;;) {
    const next = clock.nextTimerAt();
    if (next === undefined || next > until) break;
    await clock.advance(Math.max(0, next - clock.now()));
    await idle();
  }
  await clock.advance(Math.max(0, until - clock.now()));
  await idle();
}
