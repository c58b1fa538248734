/**
 * The reconcile log of the demo operator (`--reconcile-log FILE`: one JSON line per reconcile start
 * and end), as tests of operator processes read it: who reconciled what, when, with what outcome.
 */
import { readFile } from 'node:fs/promises';
import { waitFor } from './wait-for.js';
import type { WaitForOptions } from './wait-for.js';

/** One line of the log. */
export interface RecordLine {
  /** The process's leader election identity. */
  identity: string;
  pid: number;
  phase: 'start' | 'end';
  /** `namespace/name`. */
  key: string;
  /** `Date.now()` when written. */
  t: number;
  /** The ReconcileAction, by name (`Created`, `Updated`, `Deleted`...). */
  action?: string;
  /** On `end`: what the reconcile did (`ready`, `invalid`, `deleted`...). */
  outcome?: string;
}

/** The lines written so far; none when the file does not exist yet. */
export async function readRecord(file: string): Promise<RecordLine[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  // A line being written when the process was killed may be torn: keep the complete ones.
  return text
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as RecordLine];
      } catch {
        return [];
      }
    });
}

/** Polls the log until `condition` holds for its lines, and returns them. */
export function waitForRecord(file: string, condition: (lines: RecordLine[]) => boolean, options: WaitForOptions): Promise<RecordLine[]> {
  return waitFor(async () => {
    const lines = await readRecord(file);
    return condition(lines) ? lines : undefined;
  }, options);
}

/** True when the last line `identity` wrote starts a reconcile: the process is in the middle of one. */
export function isMidReconcile(lines: readonly RecordLine[], identity: string): boolean {
  return lines.findLast((l) => l.identity === identity)?.phase === 'start';
}

/** Per key, the intervals [start, end] of the reconciles of `identity`; a start without end lasts until `openUntil`. */
export function intervals(lines: readonly RecordLine[], identity: string, openUntil: number): Map<string, [number, number][]> {
  const byKey = new Map<string, [number, number][]>();
  const open = new Map<string, number>();
  for (const l of lines.filter((x) => x.identity === identity)) {
    if (l.phase === 'start') open.set(l.key, l.t);
    else {
      const start = open.get(l.key);
      open.delete(l.key);
      if (start !== undefined) byKey.set(l.key, [...(byKey.get(l.key) ?? []), [start, l.t]]);
    }
  }
  for (const [key, start] of open) byKey.set(key, [...(byKey.get(key) ?? []), [start, openUntil]]);
  return byKey;
}
