/**
 * The record the replicas of processes/replica-main.ts write, and the check made on it: per object,
 * the calls of different replicas never overlap in time (a killed replica's open call counts as
 * running until it was killed).
 */
import { readFile } from 'node:fs/promises';

/** The options of one replica process. */
export interface ReplicaOptions {
  identity: string;
  lease: string;
  record: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  workDelayMs: number;
}

/** One line of the record. */
export interface ReplicaCall {
  pid: number;
  key: string;
  resourceVersion: string;
  phase: 'start' | 'end';
  /** Date.now() of the replica (all replicas run on the test's machine: one clock). */
  at: number;
}

/** Every line written so far (a line cut by a kill is skipped). */
export async function readCalls(file: string): Promise<ReplicaCall[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const calls: ReplicaCall[] = [];
  for (const line of text.split('\n')) {
    try {
      if (line !== '') calls.push(JSON.parse(line) as ReplicaCall);
    } catch {
      // The replica was killed in the middle of this line.
    }
  }
  return calls;
}

/** One call: from its start to its end (or to `openUntil`: the kill of its process, or now). */
interface Interval {
  pid: number;
  key: string;
  from: number;
  to: number;
}

/**
 * Pairs of calls of one object by different replicas that overlap in time, described. `killedAt`
 * maps the pid of each killed replica to when it was killed; an unfinished call of a live replica
 * runs until `now`.
 */
export function overlaps(calls: readonly ReplicaCall[], killedAt: ReadonlyMap<number, number>, now: number): string[] {
  const intervals: Interval[] = [];
  const open = new Map<string, ReplicaCall>();
  for (const call of calls) {
    const id = `${call.pid} ${call.key}`;
    if (call.phase === 'start') open.set(id, call);
    else {
      const start = open.get(id);
      open.delete(id);
      if (start !== undefined) intervals.push({ pid: call.pid, key: call.key, from: start.at, to: call.at });
    }
  }
  for (const start of open.values()) intervals.push({ pid: start.pid, key: start.key, from: start.at, to: killedAt.get(start.pid) ?? now });
  const found: string[] = [];
  for (let i = 0; i < intervals.length; i++) {
    for (let j = i + 1; j < intervals.length; j++) {
      const a = intervals[i]!;
      const b = intervals[j]!;
      if (a.key === b.key && a.pid !== b.pid && a.from < b.to && b.from < a.to) {
        found.push(`${a.key}: pid ${a.pid} [${a.from}, ${a.to}] overlaps pid ${b.pid} [${b.from}, ${b.to}]`);
      }
    }
  }
  return found;
}
