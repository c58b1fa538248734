/**
 * Shrinking a failing program: drop runs of steps (halves, then quarters... then single steps), then
 * single writes inside gaps, keeping each removal after which the program still fails the same way.
 * What is left is usually a handful of steps that show the bug.
 */
import type { Program, Step } from './program.js';

/** Options of {@link shrinkProgram}. */
export interface ShrinkOptions {
  /** Give up (returning the smallest failing program so far) after this many runs. Default 200. */
  maxRuns?: number;
  /** Give up at this `Date.now()`. Default: no deadline. */
  deadline?: number;
  /** Told about each smaller failing program. Default: nothing. */
  progress?: (program: Program, runs: number) => void;
}

/** The result of shrinking. */
export interface ShrinkResult {
  program: Program;
  runs: number;
  /** False when the budget ran out before no single step could be dropped. */
  complete: boolean;
}

/**
 * Shrinks `program` while `stillFails` holds. `stillFails` runs a candidate and says whether it fails
 * the way the original did.
 */
export async function shrinkProgram(program: Program, stillFails: (candidate: Program) => Promise<boolean>, options: ShrinkOptions = {}): Promise<ShrinkResult> {
  const maxRuns = options.maxRuns ?? 200;
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  let runs = 0;
  let steps = program.steps;
  const exhausted = (): boolean => runs >= maxRuns || Date.now() >= deadline;
  const attempt = async (candidate: Step[]): Promise<boolean> => {
    runs++;
    const fails = await stillFails({ seed: program.seed, steps: candidate });
    if (fails) options.progress?.({ seed: program.seed, steps: candidate }, runs);
    return fails;
  };

  let chunk = Math.max(1, Math.ceil(steps.length / 2));
  for (;;) {
    let dropped = false;
    for (let i = 0; i < steps.length && !exhausted(); ) {
      const candidate = [...steps.slice(0, i), ...steps.slice(i + chunk)];
      if (candidate.length > 0 && (await attempt(candidate))) {
        steps = candidate;
        dropped = true;
      } else {
        i += chunk;
      }
    }
    if (exhausted()) return { program: { seed: program.seed, steps }, runs, complete: false };
    if (chunk === 1 && !dropped) break;
    chunk = dropped ? Math.min(chunk, Math.max(1, Math.ceil(steps.length / 2))) : Math.max(1, Math.floor(chunk / 2));
  }

  // Inside gaps: drop single writes.
  for (let i = 0; i < steps.length; i++) {
    let gap = steps[i]!;
    if (gap.op !== 'gap') continue;
    for (let w = 0; w < gap.writes.length && gap.writes.length > 1; ) {
      if (exhausted()) return { program: { seed: program.seed, steps }, runs, complete: false };
      const shorter: Step = { op: 'gap', writes: [...gap.writes.slice(0, w), ...gap.writes.slice(w + 1)] };
      const candidate = [...steps.slice(0, i), shorter, ...steps.slice(i + 1)];
      if (await attempt(candidate)) {
        steps = candidate;
        gap = shorter;
      } else {
        w++;
      }
    }
  }
  return { program: { seed: program.seed, steps }, runs, complete: true };
}

/**
 * What kind of violation a message is, without the names, numbers and uids that change from run to
 * run: shrinking keeps a candidate only if it fails with a violation of a kind the original had.
 */
export function violationKind(message: string): string {
  return (message.split('\n')[0] ?? '')
    .replace(/uid [0-9a-f-]+/g, 'uid U')
    .replace(/(gadget|configmap)\/\S+/g, 'OBJECT')
    .replace(/\d+/g, 'N')
    .slice(0, 80);
}
