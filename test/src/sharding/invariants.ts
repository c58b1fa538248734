/**
 * The invariants of a sharded fleet, checked on what its processes recorded (handler-call.ts) and
 * what the writer did (steady-writer.ts). Pure: no I/O, no clock of its own, so that each invariant
 * is unit-tested on synthetic records.
 *
 * 1. `overlap`: no two calls for one object by different replicas overlap in time. A call aborted by
 *    its signal, or fenced by `ctx.stillOwned()`, before its write (`aborted` or `fenced`, `wrote:
 *    false`) is excused: a fenced replica may still be returning from it. A call that was in flight
 *    when its replica was frozen (SIGSTOP) and ended after waking, having written, is counted apart
 *    (`frozenInFlight`, not hidden): no runtime can stop a frozen process. The fleet's handler checks
 *    `ctx.stillOwned()` right before its side effect. So is a `release` (`releasesOnWaking`)
 *    a replica makes within `fenceWindowMs` of waking: it fences, and tells its handlers that the
 *    objects its successor took over meanwhile are gone; that comes after the take-over by nature.
 *    A call cut by kill -9 runs until the kill; one of a live replica, until now.
 * 2. `unfinished`: every call of a replica stopped gracefully ended (in-flight calls finish on stop).
 * 3. `last-state`: for every object on the server at the end, the last call that handled it (by end
 *    time, among calls that wrote and were not frozen in flight) saw its final version.
 * 4. `cleanup`: the delete path (kinds `cleanup` and `delete`, that wrote) ran exactly once per real
 *    delete held by the finalizer (at most once for one that was not: an object deleted before any
 *    replica handled it carries no finalizer and owes no cleanup), after the delete was requested, and
 *    never for an object that was not deleted (a moved object is `release`d, not cleaned up). A second
 *    run by a call in flight across its replica's freeze is counted apart, as for overlaps.
 * 5. `handling-time`: every change is handled (by a call that wrote, on that version or a later one,
 *    or by the cleanup of a deleted object) within the bound: the time without an owner after an owner
 *    dies is inside it, with the queueing of a loaded fleet. A change of an object deleted before any
 *    replica handled it (no finalizer held the delete) owes nothing. Changes before `handlingFrom`
 *    (a burst) must be handled, but are not held to the bound.
 */
import type { CallEnd, CallLine, CallStart } from './handler-call.js';

/** One create or update by the writer. */
export interface WriterChange {
  uid: string;
  /** `namespace/name`, for reports. */
  object: string;
  /** The version written (`data.version`). */
  version: number;
  /** Date.now() when the request was sent. */
  at: number;
}

/** One real delete by the writer. */
export interface WriterDelete {
  uid: string;
  object: string;
  /** Date.now() when the request was sent. */
  at: number;
  /** The delete was held by a finalizer (the object stayed, with a deletionTimestamp): its cleanup is owed. */
  held: boolean;
}

/** An object on the server at the end. */
export interface FinalObject {
  uid: string;
  object: string;
  version: number;
}

/** What the writer did, and what it left. */
export interface WriterHistory {
  changes: readonly WriterChange[];
  deletes: readonly WriterDelete[];
  /** Every object on the server once the fleet is quiet. */
  final: readonly FinalObject[];
}

/** How a replica process ended. */
export interface ReplicaEnd {
  /** Date.now() when it was killed, or when it exited after a graceful stop. */
  at: number;
  /** Killed with SIGKILL (its unfinished calls are expected); false: stopped gracefully. */
  killed: boolean;
}

/** A time a replica was frozen (SIGSTOP to SIGCONT; `to` is Infinity while frozen). */
export interface Pause {
  from: number;
  to: number;
}

/** Everything the check reads. */
export interface InvariantInput {
  /** Every line of every replica's record file. */
  calls: readonly CallLine[];
  /** Replicas that ended, by identity; the others still run. */
  ended: ReadonlyMap<string, ReplicaEnd>;
  /** When replicas were frozen, by identity. Default: never. */
  pauses?: ReadonlyMap<string, readonly Pause[]>;
  /** How long after waking a replica's releases are its fence's (see invariant 1). Default: 5000. */
  fenceWindowMs?: number;
  writer: WriterHistory;
  /** The bound of invariant 5, in milliseconds. */
  handlingBoundMs: number;
  /**
   * Changes and deletes made before this time are not held to the bound (a burst such as the initial
   * population is a backlog, not a time without an owner); they must still be handled. Default: 0.
   */
  handlingFrom?: number;
  /** When the check runs (an unfinished call of a live replica runs until then). */
  now: number;
}

/** The names of the invariants. */
export type InvariantName = 'overlap' | 'unfinished' | 'last-state' | 'cleanup' | 'handling-time';

/** What the check found. */
export interface InvariantReport {
  /** Violations described, at most {@link MAX_REPORTED} per invariant. */
  violations: string[];
  /** How many violations of each invariant (all of them, not only those described). */
  counts: Record<InvariantName, number>;
  /** Calls recorded (start lines). */
  calls: number;
  /** Overlapping pairs excused because one of them was aborted before its write. */
  excusedOverlaps: number;
  /**
   * Overlapping pairs, and second runs of a delete path, excused because one call was in flight
   * across its replica's freeze (see the file comment).
   */
  frozenInFlight: number;
  /** Overlapping pairs excused because one call was a `release` its replica made on waking from a freeze, as it fenced. */
  releasesOnWaking: number;
  /** The slowest handling of a change or delete (invariant 5), in milliseconds. */
  maxHandlingMs: number;
  /** The 99th percentile of the handling times, in milliseconds. */
  p99HandlingMs: number;
  /** The slowest handling described (what, when made, how long), '' without any. */
  slowest: string;
}

/** Violations described per invariant (the first ones say it all). */
export const MAX_REPORTED = 10;

/** One call as an interval: its end line, or its start and when it stopped counting. */
interface Interval {
  start: CallStart;
  end: CallEnd | undefined;
  to: number;
}

/** Checks every invariant. */
export function checkInvariants(input: InvariantInput): InvariantReport {
  const report: InvariantReport = {
    violations: [],
    counts: { overlap: 0, unfinished: 0, 'last-state': 0, cleanup: 0, 'handling-time': 0 },
    calls: 0,
    excusedOverlaps: 0,
    frozenInFlight: 0,
    releasesOnWaking: 0,
    maxHandlingMs: 0,
    p99HandlingMs: 0,
    slowest: '',
  };
  const violate = (name: InvariantName, message: string): void => {
    if (report.counts[name]++ < MAX_REPORTED) report.violations.push(`${name}: ${message}`);
  };
  const intervals = intervalsByUid(input, violate);
  report.calls = [...intervals.values()].reduce((n, list) => n + list.length, 0);
  const pauses = input.pauses ?? new Map<string, readonly Pause[]>();
  const frozen = frozenInFlight(pauses);
  const fenceWindowMs = input.fenceWindowMs ?? 5000;
  const excuses: FreezeExcuses = {
    inFlight: (interval) => frozen(interval.start.replica, interval.start.start, interval.to),
    releaseOnWaking: (interval) => interval.start.kind === 'release' && (pauses.get(interval.start.replica) ?? []).some((p) => interval.start.start >= p.to && interval.start.start <= p.to + fenceWindowMs),
  };
  for (const list of intervals.values()) {
    const excused = checkOverlaps(list, excuses, violate);
    report.excusedOverlaps += excused.aborted;
    report.frozenInFlight += excused.frozen;
    report.releasesOnWaking += excused.releaseOnWaking;
  }
  const wrote = (uid: string, kinds: readonly string[]): CallEnd[] =>
    (intervals.get(uid) ?? []).flatMap((i) => (i.end !== undefined && i.end.wrote && kinds.includes(i.end.kind) ? [i.end] : []));
  // The last state is judged on calls the runtime controlled: one frozen in flight may end late with what it saw before the freeze.
  checkLastState(input.writer, (uid) => wrote(uid, HANDLING_KINDS).filter((c) => !frozen(c.replica, c.start, c.end)), violate);
  report.frozenInFlight += checkCleanups(input.writer, (uid) => wrote(uid, DELETE_PATH_KINDS), { uids: intervals.keys(), frozen }, violate);
  const { times, slowest } = handlingTimes(input, (uid, kinds) => wrote(uid, kinds), violate);
  report.slowest = slowest;
  report.maxHandlingMs = times.at(-1) ?? 0;
  report.p99HandlingMs = times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] ?? 0;
  return report;
}

/** The calls that handle an object's state. */
const HANDLING_KINDS = ['add', 'update'] as const;
/** The calls that run the user's delete path. */
const DELETE_PATH_KINDS = ['cleanup', 'delete'] as const;

/** Pairs start and end lines into intervals per uid; reports calls a graceful stop left unfinished (invariant 2). */
function intervalsByUid(input: InvariantInput, violate: (name: InvariantName, message: string) => void): Map<string, Interval[]> {
  const ends = new Map<string, CallEnd>();
  for (const line of input.calls) if (line.phase === 'end') ends.set(line.id, line);
  const byUid = new Map<string, Interval[]>();
  for (const line of input.calls) {
    if (line.phase !== 'start') continue;
    const end = ends.get(line.id);
    let to = end?.end;
    if (to === undefined) {
      const ended = input.ended.get(line.replica);
      if (ended !== undefined && !ended.killed) violate('unfinished', `${describe(line)} never ended, though its replica was stopped gracefully at ${ended.at}`);
      to = ended?.at ?? input.now;
    }
    const list = byUid.get(line.uid) ?? [];
    list.push({ start: line, end, to });
    byUid.set(line.uid, list);
  }
  return byUid;
}

/** The two ways a freeze excuses an overlap (see the file comment). */
interface FreezeExcuses {
  /** The call was in flight when its replica was frozen. */
  readonly inFlight: (interval: Interval) => boolean;
  /** The call is a `release` its replica made on waking, as it fenced. */
  readonly releaseOnWaking: (interval: Interval) => boolean;
}

/** Invariant 1 on the calls of one object; returns the overlapping pairs it excused, by reason. */
function checkOverlaps(list: Interval[], excuses: FreezeExcuses, violate: (name: InvariantName, message: string) => void): { aborted: number; frozen: number; releaseOnWaking: number } {
  list.sort((a, b) => a.start.start - b.start.start);
  const excused = { aborted: 0, frozen: 0, releaseOnWaking: 0 };
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    for (let j = i + 1; j < list.length && list[j]!.start.start < a.to; j++) {
      const b = list[j]!;
      if (a.start.replica === b.start.replica) continue;
      if (abortedBeforeWrite(a) || abortedBeforeWrite(b)) excused.aborted++;
      else if (excuses.inFlight(a) || excuses.inFlight(b)) excused.frozen++;
      else if (excuses.releaseOnWaking(a) || excuses.releaseOnWaking(b)) excused.releaseOnWaking++;
      else violate('overlap', `${describeInterval(a)} overlaps ${describeInterval(b)}`);
    }
  }
  return excused;
}

/** Whether a call of `replica` from `start` to `to` was in flight when its replica was frozen. */
type InFlightAtFreeze = (replica: string, start: number, to: number) => boolean;

/**
 * A call was in flight at a freeze when it started before a pause of its replica began (or in the
 * same millisecond: the pause is timed just after the signal was sent, in whole milliseconds) and
 * had not ended by then.
 */
function frozenInFlight(pauses: ReadonlyMap<string, readonly Pause[]>): InFlightAtFreeze {
  return (replica, start, to) => (pauses.get(replica) ?? []).some((p) => start <= p.from && to > p.from);
}

function abortedBeforeWrite(interval: Interval): boolean {
  return interval.end !== undefined && (interval.end.outcome === 'aborted' || interval.end.outcome === 'fenced') && !interval.end.wrote;
}

/** Invariant 3. */
function checkLastState(writer: WriterHistory, handled: (uid: string) => CallEnd[], violate: (name: InvariantName, message: string) => void): void {
  for (const object of writer.final) {
    const calls = handled(object.uid);
    if (calls.length === 0) {
      violate('last-state', `${object.object} (uid ${object.uid}) was never handled; its final version is ${object.version}`);
      continue;
    }
    const last = calls.reduce((a, b) => (b.end > a.end ? b : a));
    if (last.version !== object.version) violate('last-state', `${object.object} (uid ${object.uid}): the last call that handled it (${describe(last)}) saw version ${last.version}, the final version is ${object.version}`);
  }
}

/** Invariant 4; returns the second runs it excused (by a call in flight across a freeze). */
function checkCleanups(
  writer: WriterHistory,
  deletePath: (uid: string) => CallEnd[],
  calls: { uids: Iterable<string>; frozen: InFlightAtFreeze },
  violate: (name: InvariantName, message: string) => void,
): number {
  const deleted = new Map(writer.deletes.map((d) => [d.uid, d]));
  let excused = 0;
  for (const d of writer.deletes) {
    const runs = deletePath(d.uid);
    // A run by a call frozen in flight is the documented limit, when another run is there beside it.
    const frozen = runs.length > 1 ? runs.filter((run) => calls.frozen(run.replica, run.start, run.end)).length : 0;
    excused += frozen;
    const counted = runs.length - frozen;
    if (d.held ? counted !== 1 : counted > 1) violate('cleanup', `${d.object} (uid ${d.uid}) was deleted once${d.held ? ' (held by the finalizer)' : ''}; its delete path ran ${runs.length} times${runs.length === 0 ? '' : `: ${runs.map(describe).join('; ')}`}`);
    for (const run of runs) if (run.start < d.at) violate('cleanup', `${describe(run)} ran before ${d.object} was deleted (at ${d.at}): a cleanup of an object that was still there`);
  }
  for (const uid of calls.uids) {
    if (deleted.has(uid)) continue;
    for (const run of deletePath(uid)) violate('cleanup', `${describe(run)}: the delete path ran for an object that was never deleted (moved, not deleted?)`);
  }
  return excused;
}

/** Invariant 5; returns the handling times, sorted, and the slowest described. */
function handlingTimes(input: InvariantInput, wrote: (uid: string, kinds: readonly string[]) => CallEnd[], violate: (name: InvariantName, message: string) => void): { times: number[]; slowest: string } {
  const deleted = new Map(input.writer.deletes.map((d) => [d.uid, d]));
  const cleanedAt = (uid: string): number | undefined => minimum(wrote(uid, DELETE_PATH_KINDS).map((c) => c.end));
  const times: number[] = [];
  let slowest = { ms: -1, what: '' };
  const measure = (what: string, at: number, handledAt: number | undefined): void => {
    if (handledAt === undefined) {
      violate('handling-time', `${what} (at ${at}) was never handled`);
      return;
    }
    if (at < (input.handlingFrom ?? 0)) return;
    const ms = handledAt - at;
    times.push(ms);
    if (ms > slowest.ms) slowest = { ms, what: `${what}, made at ${at}, handled in ${ms} ms` };
    if (ms > input.handlingBoundMs) violate('handling-time', `${what} was handled ${ms} ms after it was made (bound ${input.handlingBoundMs} ms)`);
  };
  for (const change of input.writer.changes) {
    const handledAt = minimum(wrote(change.uid, HANDLING_KINDS).flatMap((c) => (c.version >= change.version ? [c.end] : [])));
    const deletion = deleted.get(change.uid);
    // Deleted before anyone handled it: nothing is owed unless a finalizer held the delete (then the cleanup handles it).
    if (handledAt === undefined && deletion !== undefined && !deletion.held && cleanedAt(change.uid) === undefined) continue;
    measure(`version ${change.version} of ${change.object} (uid ${change.uid})`, change.at, handledAt ?? (deletion !== undefined ? cleanedAt(change.uid) : undefined));
  }
  for (const d of input.writer.deletes) if (d.held) measure(`the delete of ${d.object} (uid ${d.uid})`, d.at, cleanedAt(d.uid));
  return { times: times.sort((a, b) => a - b), slowest: slowest.what };
}

function minimum(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : Math.min(...values);
}

function describe(call: CallStart | CallEnd): string {
  const ended = call.phase === 'end' ? `, ${call.outcome}${call.wrote ? ', wrote' : ''}, ended ${call.end}` : '';
  return `${call.kind} of ${call.object} v${call.version} by ${call.replica} (started ${call.start}${ended})`;
}

function describeInterval(interval: Interval): string {
  return interval.end === undefined ? `${describe(interval.start)} [unfinished, counted until ${interval.to}]` : describe(interval.end);
}
