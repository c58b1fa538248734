/**
 * The fleet's invariant checker on synthetic records: a history that keeps every invariant passes,
 * and each invariant is seen failing on a record set that breaks it (and only it).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CallKind, CallLine, CallOutcome } from './handler-call.js';
import { MAX_REPORTED, checkInvariants } from './invariants.js';
import type { InvariantInput, InvariantName, ReplicaEnd, WriterHistory } from './invariants.js';

let sequence = 0;

/** The two lines of one call. */
function call(replica: string, uid: string, kind: CallKind, version: number, start: number, end: number, outcome: CallOutcome = 'ok', wrote = outcome === 'ok'): CallLine[] {
  const identity = { id: `${replica}#${++sequence}`, object: `ns/${uid}`, uid, replica, kind, version, start };
  return [
    { ...identity, phase: 'start' },
    { ...identity, phase: 'end', end, outcome, wrote },
  ];
}

/** The start line of a call that never ended. */
function unfinished(replica: string, uid: string, kind: CallKind, version: number, start: number): CallLine[] {
  return [{ id: `${replica}#${++sequence}`, object: `ns/${uid}`, uid, replica, kind, version, start, phase: 'start' }];
}

/**
 * A clean history: `a` created (v1) and updated (v2) on replica r1, then moved to r2 (release on
 * r1, add on r2) which handled v3; `b` created on r2 and deleted, cleaned up once by r2.
 */
function cleanHistory(): { calls: CallLine[]; writer: WriterHistory } {
  return {
    calls: [
      ...call('r1', 'a', 'add', 1, 100, 120),
      ...call('r1', 'a', 'update', 2, 200, 220),
      ...call('r1', 'a', 'release', 2, 300, 301),
      ...call('r2', 'a', 'add', 2, 310, 330),
      ...call('r2', 'a', 'update', 3, 400, 420),
      ...call('r2', 'b', 'add', 1, 100, 120),
      ...call('r2', 'b', 'cleanup', 1, 500, 520),
    ],
    writer: {
      changes: [
        { uid: 'a', object: 'ns/a', version: 1, at: 90 },
        { uid: 'a', object: 'ns/a', version: 2, at: 190 },
        { uid: 'a', object: 'ns/a', version: 3, at: 390 },
        { uid: 'b', object: 'ns/b', version: 1, at: 95 },
      ],
      deletes: [{ uid: 'b', object: 'ns/b', at: 490, held: true }],
      final: [{ uid: 'a', object: 'ns/a', version: 3 }],
    },
  };
}

function check(calls: CallLine[], writer: WriterHistory, options: Partial<Pick<InvariantInput, 'ended' | 'pauses' | 'fenceWindowMs' | 'handlingBoundMs' | 'handlingFrom' | 'now'>> = {}): ReturnType<typeof checkInvariants> {
  return checkInvariants({ calls, writer, ended: options.ended ?? new Map<string, ReplicaEnd>(), pauses: options.pauses ?? new Map(), ...(options.fenceWindowMs === undefined ? {} : { fenceWindowMs: options.fenceWindowMs }), handlingFrom: options.handlingFrom ?? 0, handlingBoundMs: options.handlingBoundMs ?? 1000, now: options.now ?? 10_000 });
}

/** Asserts that exactly `name` failed, `times` times. */
function assertOnly(report: ReturnType<typeof checkInvariants>, name: InvariantName, times = 1): void {
  const failed = Object.entries(report.counts).filter(([, n]) => n > 0);
  assert.deepEqual(failed, [[name, times]], report.violations.join('\n'));
  assert.ok(report.violations.every((v) => v.startsWith(`${name}: `)), report.violations.join('\n'));
}

describe('the sharded fleet invariants', () => {
  test('a clean history with a hand-over passes every invariant, and its handling times are measured', () => {
    const { calls, writer } = cleanHistory();
    const report = check(calls, writer);
    assert.deepEqual(report.violations, []);
    assert.equal(report.calls, 7);
    // Slowest: version 2 of a, written at 190, handled at 220 = 30 ms; the delete of b: 520 - 490 = 30.
    assert.equal(report.maxHandlingMs, 30);
  });

  test('overlap: two replicas handling one object at the same time fail, touching intervals and one replica’s own calls do not', () => {
    const { calls, writer } = cleanHistory();
    const overlapping = [...calls, ...call('r3', 'a', 'update', 2, 210, 215)];
    const report = check(overlapping, writer);
    assertOnly(report, 'overlap');
    assert.match(report.violations[0]!, /update of ns\/a v2 by r1 .* overlaps update of ns\/a v2 by r3/);
    // Back to back (one ends when the other starts) is not an overlap; nor are two calls of one replica.
    assert.deepEqual(check([...calls, ...call('r3', 'a', 'update', 2, 220, 230)], writer).violations, []);
    assert.deepEqual(check([...calls, ...call('r1', 'a', 'update', 2, 210, 215)], writer).violations, []);
  });

  test('overlap: a call aborted before its write is excused; aborted after its write, or failed, it is not', () => {
    const { calls, writer } = cleanHistory();
    const fenced = check([...calls, ...call('r3', 'a', 'update', 2, 205, 240, 'aborted', false)], writer);
    assert.deepEqual(fenced.violations, []);
    assert.equal(fenced.excusedOverlaps, 1);
    assertOnly(check([...calls, ...call('r3', 'a', 'update', 2, 205, 240, 'aborted', true)], writer), 'overlap');
    assertOnly(check([...calls, ...call('r3', 'a', 'update', 2, 205, 240, 'error', false)], writer), 'overlap');
  });

  test('overlap: a call cut by kill -9 runs until the kill; an unfinished call of a live replica runs until now', () => {
    const { calls, writer } = cleanHistory();
    const cut = [...calls, ...unfinished('r3', 'a', 'update', 2, 150)];
    assert.deepEqual(check(cut, writer, { ended: new Map([['r3', { at: 190, killed: true }]]) }).violations, []);
    assertOnly(check(cut, writer, { ended: new Map([['r3', { at: 205, killed: true }]]) }), 'overlap');
    assertOnly(check(cut, writer), 'overlap', 4);
  });

  test('unfinished: a replica stopped gracefully must have ended every call', () => {
    const { calls, writer } = cleanHistory();
    const report = check([...calls, ...unfinished('r3', 'z', 'update', 2, 150)], writer, { ended: new Map([['r3', { at: 160, killed: false }]]) });
    assertOnly(report, 'unfinished');
    assert.match(report.violations[0]!, /update of ns\/z v2 by r3 .* never ended, though its replica was stopped gracefully/);
  });

  test('last-state: an object whose last handling saw an older version, or that was never handled, fails', () => {
    const { calls, writer } = cleanHistory();
    // r1 handled v2 after r2 handled v3 (a stale cache after a hand-over).
    const stale = check([...calls, ...call('r1', 'a', 'update', 2, 430, 440)], writer);
    assertOnly(stale, 'last-state');
    assert.match(stale.violations[0]!, /saw version 2, the final version is 3/);
    // A failed or fenced call does not count as handling.
    const unhandledFinal = { ...writer, changes: [...writer.changes, { uid: 'a', object: 'ns/a', version: 4, at: 600 }], final: [{ uid: 'a', object: 'ns/a', version: 4 }] };
    const failed = check([...calls, ...call('r2', 'a', 'update', 4, 610, 620, 'error', false)], unhandledFinal, { handlingBoundMs: 100_000 });
    assert.equal(failed.counts['last-state'], 1, failed.violations.join('\n'));
    const never = check(calls, { ...writer, final: [...writer.final, { uid: 'c', object: 'ns/c', version: 1 }] });
    assertOnly(never, 'last-state');
    assert.match(never.violations[0]!, /ns\/c \(uid c\) was never handled/);
  });

  test('cleanup: twice for one delete, never for a delete, before the delete, or for an object that only moved: each fails', () => {
    const { calls, writer } = cleanHistory();
    // The final delete event delivered to a new owner after the old one cleaned up: a second run of the delete path.
    const twice = check([...calls, ...call('r1', 'b', 'delete', 1, 530, 540)], writer);
    assertOnly(twice, 'cleanup');
    assert.match(twice.violations[0]!, /ns\/b \(uid b\) was deleted once \(held by the finalizer\); its delete path ran 2 times/);
    const withoutCleanup = calls.filter((l) => !(l.uid === 'b' && l.kind === 'cleanup'));
    const never = check(withoutCleanup, writer, { handlingBoundMs: 100_000 });
    assert.equal(never.counts.cleanup, 1, never.violations.join('\n'));
    assert.match(never.violations.find((v) => v.startsWith('cleanup'))!, /its delete path ran 0 times/);
    const early = check([...withoutCleanup, ...call('r2', 'b', 'cleanup', 1, 480, 495)], writer);
    assertOnly(early, 'cleanup');
    assert.match(early.violations[0]!, /ran before ns\/b was deleted/);
    // `a` moved from r1 to r2: a cleanup on r1 for it is the bug the `release` kind exists to prevent.
    const moved = check([...calls, ...call('r1', 'a', 'cleanup', 2, 302, 305)], writer);
    assertOnly(moved, 'cleanup');
    assert.match(moved.violations[0]!, /the delete path ran for an object that was never deleted/);
    // A cleanup that failed before its side effect is not a run.
    assert.deepEqual(check([...calls, ...call('r1', 'b', 'cleanup', 1, 495, 499, 'error', false)], writer).violations, []);
  });

  test('overlap and cleanup: a call in flight when its replica was frozen (SIGSTOP) is counted apart, not as a violation; one started after the freeze is not excused', () => {
    const { calls, writer } = cleanHistory();
    // r1 froze at 205 during its update of a (200..220 became 200..3000), while r3 took a over.
    const frozenCall = calls.map((l) => (l.uid === 'a' && l.replica === 'r1' && l.kind === 'update' && l.phase === 'end' ? { ...l, end: 3000 } : l));
    const overlapping = [...frozenCall, ...call('r3', 'a', 'update', 3, 2500, 2520)];
    const pauses = new Map([['r1', [{ from: 205, to: 2900 }]]]);
    const report = check(overlapping, writer, { pauses, handlingBoundMs: 100_000 });
    assert.deepEqual(report.violations, []);
    // r1's frozen update overlaps r2's add and update and r3's update; it ended last, with version 2, but the last state is judged without it.
    assert.equal(report.frozenInFlight, 3);
    // A call started in the very millisecond the pause was timed (just after SIGSTOP was sent) was in flight too.
    const sameMillisecond = [...calls, ...call('r1', 'a', 'update', 3, 2600, 2900), ...call('r3', 'a', 'update', 3, 2700, 2720)];
    assert.deepEqual(check(sameMillisecond, writer, { pauses: new Map([['r1', [{ from: 2600, to: 2880 }]]]) }).counts.overlap, 0);
    // Without the pause on record, the same overlaps are violations.
    assert.equal(check(overlapping, writer, { handlingBoundMs: 100_000 }).counts.overlap, 3);
    // A call r1 started after it was frozen (it should not have been dispatched) is not excused.
    assertOnly(check([...calls, ...call('r1', 'a', 'update', 3, 2950, 2990), ...call('r3', 'a', 'update', 3, 2960, 2980)], writer, { pauses }), 'overlap');
    // r1's fence on waking releases `a`, which r3 handles meanwhile: counted apart; a release long after waking is not.
    const released = [...calls, ...call('r3', 'a', 'update', 3, 3000, 3020), ...call('r1', 'a', 'release', 2, 3005, 3006)];
    const onWaking = check(released, writer, { pauses });
    assert.deepEqual(onWaking.violations, []);
    assert.deepEqual([onWaking.releasesOnWaking, onWaking.frozenInFlight], [1, 0], 'counted as a release on waking, not as a call frozen in flight');
    assertOnly(check(released, writer, { pauses, fenceWindowMs: 50 }), 'overlap');
    assertOnly(check(released, writer), 'overlap');
    // A cleanup in flight at the freeze, finished beside its successor's: counted apart.
    const twice = [...calls, ...call('r1', 'b', 'cleanup', 1, 495, 3000)];
    const cleanups = check(twice, writer, { pauses: new Map([['r1', [{ from: 498, to: 2900 }]]]) });
    assert.equal(cleanups.counts.cleanup, 0, cleanups.violations.join('\n'));
    assert.ok(cleanups.frozenInFlight >= 1);
    assert.equal(check(twice, writer).counts.cleanup, 1);
  });

  test('cleanup: a delete no finalizer held (the object was deleted before any replica handled it) owes no cleanup, but never two', () => {
    const { calls, writer } = cleanHistory();
    const quick = { ...writer, changes: [...writer.changes, { uid: 'q', object: 'ns/q', version: 1, at: 600 }], deletes: [...writer.deletes, { uid: 'q', object: 'ns/q', at: 610, held: false }] };
    assert.deepEqual(check(calls, quick).violations, []);
    assert.deepEqual(check([...calls, ...call('r1', 'q', 'delete', 1, 620, 640)], quick).violations, []);
    assertOnly(check([...calls, ...call('r1', 'q', 'delete', 1, 620, 640), ...call('r2', 'q', 'delete', 1, 650, 660)], quick), 'cleanup');
    // Held by the finalizer, the same history owes its cleanup.
    const held = { ...quick, deletes: [...writer.deletes, { uid: 'q', object: 'ns/q', at: 610, held: true }] };
    assert.equal(check(calls, held).counts.cleanup, 1);
  });

  test('handling-time: a change handled later than the bound, or never, fails; a superseded change counts as handled by the later version', () => {
    const { calls, writer } = cleanHistory();
    // The owner of `a` died after v2; v3 was handled 3 s after it was written.
    const late = calls.map((l) => (l.uid === 'a' && l.version === 3 ? { ...l, start: 3300, ...(l.phase === 'end' ? { end: 3390 } : {}) } : l));
    const report = check(late, writer);
    assertOnly(report, 'handling-time');
    assert.match(report.violations[0]!, /version 3 of ns\/a \(uid a\) was handled 3000 ms after it was made \(bound 1000 ms\)/);
    assert.equal(report.maxHandlingMs, 3000);
    // Made before `handlingFrom` (a burst), the same change is not held to the bound; never handled, it still fails.
    assert.deepEqual(check(late, writer, { handlingFrom: 395 }).violations, []);
    assert.equal(check(calls.filter((l) => !(l.uid === 'a' && l.version === 3)), writer, { handlingFrom: 395 }).counts['handling-time'], 1);
    // v2 never handled by itself, but v3 was: superseded, handled when v3 was.
    const superseded = calls.filter((l) => !(l.uid === 'a' && l.version === 2 && l.kind === 'update'));
    const ok = check(superseded, writer);
    assert.deepEqual(ok.violations, []);
    // v2 (written at 190) handled when r2 handled it, by the add at its hand-over (ended 330).
    assert.equal(ok.maxHandlingMs, 140);
    const never = check(calls, { ...writer, changes: [...writer.changes, { uid: 'a', object: 'ns/a', version: 4, at: 700 }], final: [{ uid: 'a', object: 'ns/a', version: 4 }] });
    assert.equal(never.counts['handling-time'], 1, never.violations.join('\n'));
    assert.match(never.violations.find((v) => v.startsWith('handling-time'))!, /version 4 of ns\/a \(uid a\) \(at 700\) was never handled/);
  });

  test('the report describes at most MAX_REPORTED violations per invariant but counts all of them', () => {
    const { calls, writer } = cleanHistory();
    const many = [...calls];
    for (let i = 0; i < MAX_REPORTED + 5; i++) many.push(...call(`x${i}`, 'a', 'update', 2, 205, 215));
    const report = check(many, writer);
    assert.ok(report.counts.overlap > MAX_REPORTED);
    assert.equal(report.violations.length, MAX_REPORTED);
  });
});
