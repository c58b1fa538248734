/**
 * The end of a fleet run: wait until the fleet is quiet (every object's final version handled,
 * every deleted object cleaned up and gone), then check the invariants on the records.
 */
import { waitFor } from '../support/wait-for.js';
import { checkInvariants } from './invariants.js';
import type { InvariantReport } from './invariants.js';
import type { ReplicaFleet } from './replica-fleet.js';
import type { SteadyWriter } from './steady-writer.js';

/** The invariants on everything the fleet recorded and the writer did, now. */
export async function checkFleet(fleet: ReplicaFleet, writer: SteadyWriter, handlingBoundMs: number): Promise<InvariantReport> {
  const history = await writer.history();
  // The population is a burst: its backlog is not time without an owner.
  return checkInvariants({ calls: await fleet.records(), ended: fleet.ended(), pauses: fleet.paused(), writer: history, handlingBoundMs, handlingFrom: writer.populatedAt, now: Date.now() });
}

/**
 * Waits (up to `timeoutMs`) until no object is being deleted and the last handling of every object
 * saw its final version; returns the invariants checked then.
 */
export async function quiesce(fleet: ReplicaFleet, writer: SteadyWriter, handlingBoundMs: number, timeoutMs: number): Promise<InvariantReport> {
  let last: InvariantReport | undefined;
  try {
    await waitFor(
      async () => {
        if ((await writer.deleting()) > 0) return false;
        last = await checkFleet(fleet, writer, handlingBoundMs);
        return last.counts['last-state'] === 0;
      },
      { timeoutMs, intervalMs: 250, what: 'the fleet to handle every object’s final version and clean up every deleted object' },
    );
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${last?.violations.join('\n') ?? ''}`);
  }
  return checkFleet(fleet, writer, handlingBoundMs);
}

/** A report in a few lines, for assertion messages and logs. */
export function summary(report: InvariantReport): string {
  const counts = Object.entries(report.counts)
    .map(([name, n]) => `${name}=${n}`)
    .join(' ');
  return `${report.calls} calls, violations: ${counts}, aborted before their write and overlapping: ${report.excusedOverlaps}, frozen in flight and overlapping or cleaning up twice: ${report.frozenInFlight}, releases on waking overlapping the successor: ${report.releasesOnWaking}, handling p99 ${report.p99HandlingMs} ms, max ${report.maxHandlingMs} ms (${report.slowest})${report.violations.length === 0 ? '' : `\n  ${report.violations.join('\n  ')}`}`;
}
