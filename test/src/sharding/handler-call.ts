/**
 * The NDJSON record of handler calls that each sharded operator process writes (one file per
 * process), and its reader. A call writes two lines: `start` when it begins, so that a call cut by
 * kill -9 is still seen, and `end` with its outcome. Lines are appended synchronously: a line
 * written is on disk even if the process is killed right after. All processes run on the test's
 * machine, so their `Date.now()` is one clock.
 */
import { appendFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/**
 * What the call was: `add` (Created), `update` (Updated or Resynced), `cleanup` (the finalizer's
 * delete path: deletionTimestamp set, our finalizer on), `delete` (a Deleted that reached user code
 * without our finalizer on the object: the final delete event), `release` (the object left this
 * replica's shard: not a delete).
 */
export type CallKind = 'add' | 'update' | 'delete' | 'release' | 'cleanup';

/**
 * How a call ended: returned, threw, threw because its `ctx.signal` aborted, or gave up its write
 * because `ctx.stillOwned()` said the object was no longer its replica's (`fenced`).
 */
export type CallOutcome = 'ok' | 'error' | 'aborted' | 'fenced';

/** What both lines of a call carry. */
export interface CallIdentity {
  /** Unique in the whole run: `<replica>#<sequence>`. */
  id: string;
  /** `namespace/name`. */
  object: string;
  uid: string;
  /** The identity of the process (unique per process started). */
  replica: string;
  kind: CallKind;
  /** The writer's version of the object's content (its `data.version`), -1 when it has none. */
  version: number;
  /** Date.now() when the call began. */
  start: number;
}

/** The line written when a call begins. */
export interface CallStart extends CallIdentity {
  phase: 'start';
}

/** The line written when a call ends. */
export interface CallEnd extends CallIdentity {
  phase: 'end';
  /** Date.now() when the call returned or threw. */
  end: number;
  outcome: CallOutcome;
  /**
   * The call made its side effect (the write the handler exists for). A call aborted by a fence
   * before its write has `wrote: false`: it may overlap another replica's call without harm.
   */
  wrote: boolean;
}

/** One line of a record file. */
export type CallLine = CallStart | CallEnd;

/** Appends call lines to one file, synchronously. */
export class CallRecorder {
  private sequence = 0;

  constructor(
    private readonly file: string,
    private readonly replica: string,
  ) {}

  /** Writes the start line of a new call and returns its identity (pass it to {@link end}). */
  begin(call: Omit<CallIdentity, 'id' | 'replica' | 'start'>): CallIdentity {
    const identity: CallIdentity = { ...call, id: `${this.replica}#${++this.sequence}`, replica: this.replica, start: Date.now() };
    this.write({ ...identity, phase: 'start' });
    return identity;
  }

  /** Writes the end line of `call`. */
  end(call: CallIdentity, outcome: CallOutcome, wrote: boolean): void {
    this.write({ ...call, phase: 'end', end: Date.now(), outcome, wrote });
  }

  private write(line: CallLine): void {
    appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }
}

/** Every complete line of the record files (a line cut by a kill, or a missing file, is skipped). */
export async function readCallLines(files: readonly string[]): Promise<CallLine[]> {
  const lines: CallLine[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        lines.push(JSON.parse(line) as CallLine);
      } catch {
        // The process was killed in the middle of this line.
      }
    }
  }
  return lines;
}
