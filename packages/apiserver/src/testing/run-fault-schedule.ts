/**
 * Running a fault schedule against a test environment: each fault is applied, the operator meets it
 * for the fault's pause, then the fault is cleared and the test's own step (`between`) runs on a
 * healthy server, so the test's writes never meet an injected failure.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Faults } from '../http/faults.js';
import { describeFault } from './fault-schedule.js';
import type { FaultSchedule, ScheduledFault } from './fault-schedule.js';
import { Prng } from './prng.js';

/** What `between` is given after each fault. */
export interface FaultStep {
  /** The position of the fault in the schedule, from 0. */
  readonly index: number;
  /** The fault just applied (and cleared). */
  readonly fault: ScheduledFault;
  /** A generator seeded from the schedule's seed: choices drawn from it replay with the seed. */
  readonly rng: Prng;
}

/** Options of `env.runFaultSchedule()`. */
export interface RunFaultScheduleOptions {
  /**
   * The test's step after each fault (typically a write the operator must follow), run once the
   * fault's pause is over and pending failures and latency are cleared. Default: none.
   */
  between?: ((step: FaultStep) => void | Promise<void>) | undefined;
  /** Stops the run between two steps (rejects with the signal's reason). Default: none. */
  signal?: AbortSignal | undefined;
}

/** The environment as the runner needs it. */
export interface FaultTarget {
  readonly faults: Faults;
  /** True when {@link FaultTarget.restart} keeps the server's objects. */
  readonly restartable: boolean;
  restart(): Promise<void>;
}

/** Mixed into the seed so that the test's choices are not the schedule's own draws. */
const BETWEEN_STREAM = 0x7e57_c0de;

/** Runs `schedule` on `target`; returns when every fault has been applied and cleared. */
export async function runFaultSchedule(target: FaultTarget, schedule: FaultSchedule, options: RunFaultScheduleOptions = {}): Promise<void> {
  if (!target.restartable && schedule.faults.some((f) => f.kind === 'restart')) {
    throw new Error(`fault schedule seed ${schedule.options.seed} has a restart: start the environment with startTestEnv({ persistent: true }) (or a server dataDir)`);
  }
  const rng = new Prng((schedule.options.seed ^ BETWEEN_STREAM) >>> 0);
  for (const [index, fault] of schedule.faults.entries()) {
    options.signal?.throwIfAborted();
    try {
      await applyFault(target, fault);
      await sleep(fault.pauseMs, undefined, { signal: options.signal });
    } finally {
      // A failure the operator did not meet during the pause is dropped with it: faults never leak into `between`.
      target.faults.reset();
    }
    try {
      await options.between?.({ index, fault, rng });
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`fault schedule seed ${schedule.options.seed}: between() failed after fault ${index + 1} (${describeFault(fault)}): ${why}`, { cause: error });
    }
  }
}

async function applyFault(target: FaultTarget, fault: ScheduledFault): Promise<void> {
  switch (fault.kind) {
    case 'dropWatches':
      target.faults.dropWatches(fault.mode === 'reset' ? {} : fault.mode === 'midLine' ? { midLine: true } : { graceful: true });
      return;
    case 'compact':
      target.faults.compact();
      target.faults.dropWatches();
      return;
    case 'failNext':
      target.faults.failNext({
        ...(fault.verb !== undefined ? { verb: fault.verb } : {}),
        ...(fault.resource !== undefined ? { resource: fault.resource } : {}),
        ...(fault.retryAfterSeconds !== undefined ? { retryAfterSeconds: fault.retryAfterSeconds } : {}),
        status: fault.status,
        count: fault.count,
      });
      return;
    case 'latency':
      target.faults.latency(fault.ms);
      return;
    case 'restart':
      await target.restart();
      return;
    // Workload faults hold until the runner's reset() after the pause.
    case 'imagePullFailure':
      target.faults.imagePullFailure(fault.pods);
      return;
    case 'neverReady':
      target.faults.neverReady(fault.pods);
      return;
    case 'crashLoop':
      target.faults.crashLoop({ ...fault.pods, exitCode: fault.exitCode });
      return;
    case 'slowStart':
      target.faults.slowStart({ ...fault.pods, podStartMs: fault.podStartMs });
      return;
    case 'nodeNotReady':
      target.faults.nodeNotReady(fault.node, { status: fault.status });
      return;
  }
}
