/**
 * Runs many programs one after the other: each program's invariants, the heap across programs
 * (back near its baseline after each one), and, for a failure, the seed and the shrunk program,
 * saved so that it can be replayed exactly.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heapAfterGc, megabytes } from './heap.js';
import { describeProgram } from './program.js';
import type { Program } from './program.js';
import { runProgram } from './run-program.js';
import type { ProgramOutcome, RunProgramOptions } from './run-program.js';
import { shrinkProgram, violationKind } from './shrink.js';

/** Options of {@link runCampaign}. */
export interface CampaignOptions extends RunProgramOptions {
  /** Shrink failing programs. Default true. */
  shrink?: boolean;
  /** Time allowed to shrink one failure, in ms. Default 120000. */
  shrinkBudgetMs?: number;
  /** How many failures are shrunk; later ones print their whole program (keeps a failing CI run short). Default: all. */
  shrinkLimit?: number;
  /** How far above the baseline (the heap after the first program) the heap may be after a program. Default 24 MiB. */
  heapSlackBytes?: number;
  /** Where failing programs are saved. Default `<tmp>/kubeloop-reliability-failures`. */
  saveDir?: string;
  /** Receives progress lines. Default: nothing. */
  log?: (line: string) => void;
  /**
   * Only violations containing this text fail a program and guide shrinking; the others are
   * printed as ignored (to chase one bug while another is known). Default: every violation counts.
   */
  focus?: string;
}

/** A failed program. */
export interface Failure {
  seed: number;
  violations: string[];
  /** The shrunk program (when shrinking ran) and where it was saved. */
  shrunk: Program | undefined;
  savedTo: string | undefined;
  /** The report printed for it. */
  report: string;
}

/** Totals of a campaign (the README's Reliability table is made of these). */
export interface CampaignSummary {
  programs: number;
  failures: Failure[];
  faults: number;
  writes: number;
  handlerCalls: number;
  objectsLost: number;
  duplicateDeletes: number;
  deletes: number;
  /** Processes that exited without being told to (process mode). */
  unexpectedExits: number;
  /** The slowest convergence after the last fault, over the programs that converged. */
  worstConvergenceMs: number;
  peakHeapBytes: number;
  heapBaselineBytes: number;
  heapEndBytes: number;
  durationMs: number;
}

/** The result of one program of a campaign. */
export interface CampaignRun {
  outcome: ProgramOutcome;
  /** Heap after a collection, after the program. */
  heapAfterBytes: number;
  failure: Failure | undefined;
}

/** Programs run one after the other, with totals and the heap compared across them. */
export class Campaign {
  readonly summary: CampaignSummary = {
    programs: 0,
    failures: [],
    faults: 0,
    writes: 0,
    handlerCalls: 0,
    objectsLost: 0,
    duplicateDeletes: 0,
    deletes: 0,
    unexpectedExits: 0,
    worstConvergenceMs: 0,
    peakHeapBytes: 0,
    heapBaselineBytes: 0,
    heapEndBytes: 0,
    durationMs: 0,
  };
  private readonly options: CampaignOptions;
  private readonly log: (line: string) => void;

  constructor(options: CampaignOptions = {}) {
    this.options = options;
    this.log = options.log ?? ((): void => undefined);
  }

  /** Runs one program, checks the heap against the baseline (the heap after the first program), shrinks a failure. */
  async run(program: Program): Promise<CampaignRun> {
    const { options, summary, log } = this;
    const started = Date.now();
    const slack = options.heapSlackBytes ?? 24 * 1024 * 1024;
    const outcome = await runProgram(program, options);
    ignoreUnfocused(outcome, options.focus, log);
    const heap = heapAfterGc();
    if (summary.programs === 0) summary.heapBaselineBytes = heap;
    else if (heap > summary.heapBaselineBytes + slack) {
      outcome.violations.push(`heap after the program ${megabytes(heap)}, more than ${megabytes(slack)} above the baseline ${megabytes(summary.heapBaselineBytes)}`);
    }
    summary.heapEndBytes = heap;
    add(summary, outcome);
    log(outcomeLine(outcome, heap));
    let failure: Failure | undefined;
    if (outcome.violations.length > 0) {
      const shrink = (options.shrink ?? true) && summary.failures.length < (options.shrinkLimit ?? Number.POSITIVE_INFINITY);
      failure = await reportFailure(outcome, { ...options, shrink }, log);
      summary.failures.push(failure);
    }
    summary.durationMs += Date.now() - started;
    return { outcome, heapAfterBytes: heap, failure };
  }
}

/** Runs `programs` in order. */
export async function runCampaign(programs: Iterable<Program>, options: CampaignOptions = {}): Promise<CampaignSummary> {
  const campaign = new Campaign(options);
  for (const program of programs) await campaign.run(program);
  return campaign.summary;
}

function focused(violation: string, focus: string | undefined): boolean {
  return focus === undefined || violation.includes(focus);
}

function ignoreUnfocused(outcome: ProgramOutcome, focus: string | undefined, log: (line: string) => void): void {
  if (focus === undefined) return;
  const ignored = outcome.violations.filter((v) => !focused(v, focus));
  if (ignored.length > 0) log(`seed ${outcome.program.seed}: ignoring ${ignored.length} violations outside --focus, e.g. ${ignored[0]}`);
  outcome.violations = outcome.violations.filter((v) => focused(v, focus));
}

function add(summary: CampaignSummary, outcome: ProgramOutcome): void {
  summary.programs++;
  summary.faults += outcome.faults;
  summary.writes += outcome.writes;
  summary.handlerCalls += outcome.handlerCalls;
  summary.objectsLost += outcome.objectsLost;
  summary.duplicateDeletes += outcome.duplicateDeletes;
  summary.deletes += outcome.deletes;
  summary.unexpectedExits += outcome.unexpectedExits;
  if (outcome.convergenceMs !== undefined) summary.worstConvergenceMs = Math.max(summary.worstConvergenceMs, outcome.convergenceMs);
  summary.peakHeapBytes = Math.max(summary.peakHeapBytes, outcome.peakHeapBytes);
}

/** One line per program. */
export function outcomeLine(outcome: ProgramOutcome, heapAfter: number): string {
  const p = outcome.program;
  const converged = outcome.convergenceMs === undefined ? 'NOT converged' : `converged ${outcome.convergenceMs} ms after the last fault`;
  return (
    `seed ${p.seed}: ${outcome.violations.length === 0 ? 'ok' : `FAILED (${outcome.violations.length} violations)`}, ${p.steps.length} steps ` +
    `(${outcome.faults} faults, ${outcome.writes} writes, ${outcome.writesFailed} refused), ${outcome.handlerCalls} handler calls, ${converged}, ` +
    `peak heap ${megabytes(outcome.peakHeapBytes)}, heap after ${megabytes(heapAfter)}, ${(outcome.durationMs / 1000).toFixed(1)} s`
  );
}

async function reportFailure(outcome: ProgramOutcome, options: CampaignOptions, log: (line: string) => void): Promise<Failure> {
  const { program, violations } = outcome;
  const lines = [`FAILED seed ${program.seed}:`, ...violations.map((v) => `  - ${v}`)];
  let shrunk: Program | undefined;
  let savedTo: string | undefined;
  const kinds = new Set(violations.filter((v) => !v.startsWith('heap after')).map(violationKind));
  if ((options.shrink ?? true) && kinds.size > 0) {
    log(`shrinking seed ${program.seed} (${program.steps.length} steps)...`);
    const result = await shrinkProgram(
      program,
      // A shorter grace: a candidate that does not converge within the bound fails the same way, and shrinking runs many.
      async (candidate) => (await runProgram(candidate, { ...options, graceMs: 1000 })).violations.some((v) => kinds.has(violationKind(v)) && focused(v, options.focus)),
      {
        deadline: Date.now() + (options.shrinkBudgetMs ?? 120_000),
        progress: (smaller, runs) => log(`  still failing with ${smaller.steps.length} steps (run ${runs})`),
      },
    );
    shrunk = result.program;
    const dir = options.saveDir ?? join(tmpdir(), 'kubeloop-reliability-failures');
    await mkdir(dir, { recursive: true });
    savedTo = join(dir, `seed-${program.seed}-shrunk.json`);
    await writeFile(savedTo, `${JSON.stringify(shrunk, null, 1)}\n`, 'utf8');
    lines.push(
      `shrunk to ${shrunk.steps.length} of ${program.steps.length} steps in ${result.runs} runs${result.complete ? '' : ' (budget ran out: it may shrink further)'}:`,
      describeProgram(shrunk),
      `saved to ${savedTo}`,
    );
  } else {
    lines.push('program:', describeProgram(program));
  }
  lines.push(`replay: npm run test:reliability -- --seed ${program.seed}${savedTo ? `   (the shrunk program: npm run test:reliability -- --program ${savedTo})` : ''}`);
  const report = lines.join('\n');
  log(report);
  return { seed: program.seed, violations, shrunk, savedTo, report };
}
