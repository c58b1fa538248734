/**
 * The soak: one API server and one operator for a long time, generated programs one after the other
 * (writes and faults, restarts included), then the same invariants as a program, and the heap's
 * growth over the run: the heap after a collection at each program boundary, from the end of the
 * first program (the baseline: modules loaded, code warmed up) to the end.
 */
import { megabytes } from './heap.js';
import { generateProgram } from './program.js';
import { runProgram } from './run-program.js';
import type { ProgramOutcome } from './run-program.js';

/** Options of {@link runSoak}. */
export interface SoakOptions {
  durationMs: number;
  /** Seed of the first program; the next ones use the following seeds. */
  seed: number;
  log: (line: string) => void;
}

/** What the soak measured. */
export interface SoakResult {
  outcome: ProgramOutcome;
  violations: string[];
  /** Heap after a collection: after the first program, and at the end. */
  heapBaselineBytes: number;
  heapEndBytes: number;
}

/** Runs the soak and logs its result. */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const deadline = Date.now() + options.durationMs;
  let seed = options.seed;
  const outcome = await runProgram(generateProgram(seed), {
    moreSteps: () => (Date.now() < deadline ? generateProgram(++seed).steps : undefined),
  });
  const samples = outcome.heapSamples;
  const baseline = samples[0]?.bytes ?? 0;
  const end = samples[samples.length - 1]?.bytes ?? 0;
  const minutes = Math.max(1e-9, ((samples[samples.length - 1]?.atMs ?? 0) - (samples[0]?.atMs ?? 0)) / 60_000);
  const { log } = options;
  log(`soak: ${(outcome.durationMs / 1000).toFixed(0)} s, programs of seeds ${options.seed}..${seed}, ${outcome.program.steps.length} steps`);
  log(`  ${outcome.faults} faults, ${outcome.writes} writes (${outcome.writesFailed} refused), ${outcome.handlerCalls} handler calls, ${outcome.deletes} user deletes`);
  log(`  converged ${outcome.convergenceMs ?? 'NEVER'} ms after the last fault; objects lost ${outcome.objectsLost}; duplicate deletes ${outcome.duplicateDeletes}`);
  log(`  heap after collection: ${samples.map((s) => megabytes(s.bytes)).join(' -> ')}`);
  log(`  peak heap ${megabytes(outcome.peakHeapBytes)}; growth ${megabytes(end - baseline)} (${megabytes((end - baseline) / minutes)} per minute)`);
  for (const v of outcome.violations) log(`  - ${v}`);
  return { outcome, violations: outcome.violations, heapBaselineBytes: baseline, heapEndBytes: end };
}
