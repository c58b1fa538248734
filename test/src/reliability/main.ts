/**
 * `npm run test:reliability -- [options]`: the randomized reliability suite from the command line.
 *
 *   --seed S         replay the program of seed S (repeatable; what a failure prints)
 *   --seeds N        run the programs of seeds 1..N (with --from K: K..K+N-1)
 *   --program FILE   replay a saved (shrunk) program
 *   --steps N        steps per generated program (default 60; a seed's program depends on it)
 *   --soak SECONDS   one long run: writes and faults for SECONDS, heap sampled, growth reported
 *   --no-shrink      report failures without shrinking them
 *   --focus TEXT     only violations containing TEXT count (chase one bug while another is known)
 *   --processes      run the API server and the operator each in a child process of its own, as users
 *                    deploy an operator (faults over IPC, the restart fault a real SIGKILL of the server)
 *
 * Without options it runs the seeds CI runs. Exits 1 when a program fails.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { runCampaign } from './campaign.js';
import type { CampaignSummary } from './campaign.js';
import { CI_SEEDS } from './ci-seeds.js';
import { megabytes } from './heap.js';
import { generateProgram } from './program.js';
import type { Program } from './program.js';
import { runSoak } from './soak.js';

const USAGE = 'usage: npm run test:reliability -- [--seed S]... [--seeds N [--from K]] [--program FILE] [--steps N] [--soak SECONDS] [--no-shrink] [--focus TEXT] [--processes]';

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        seed: { type: 'string', multiple: true },
        seeds: { type: 'string' },
        from: { type: 'string' },
        program: { type: 'string' },
        steps: { type: 'string' },
        soak: { type: 'string' },
        'no-shrink': { type: 'boolean' },
        focus: { type: 'string' },
        processes: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (parsed.help) {
    console.log(USAGE);
    return 0;
  }
  const log = (line: string): void => console.log(line);

  if (parsed.soak !== undefined) {
    const seconds = positive('soak', parsed.soak);
    const result = await runSoak({ durationMs: seconds * 1000, seed: parsed.seed?.[0] !== undefined ? positive('seed', parsed.seed[0]) : 1, log });
    return result.violations.length === 0 ? 0 : 1;
  }

  const steps = parsed.steps !== undefined ? positive('steps', parsed.steps) : undefined;
  const shape = steps !== undefined ? { steps } : {};
  let programs: Program[];
  if (parsed.program !== undefined) {
    programs = [JSON.parse(await readFile(parsed.program, 'utf8')) as Program];
  } else if (parsed.seeds !== undefined) {
    const count = positive('seeds', parsed.seeds);
    const from = parsed.from !== undefined ? positive('from', parsed.from) : 1;
    programs = Array.from({ length: count }, (_, i) => generateProgram(from + i, shape));
  } else {
    const seeds = parsed.seed?.map((s) => positive('seed', s)) ?? CI_SEEDS;
    programs = seeds.map((s) => generateProgram(s, shape));
  }
  const processes = parsed.processes ?? false;
  if (processes) log('process mode: the API server and the operator run each in a child process of its own');
  const summary = await runCampaign(programs, { shrink: !parsed['no-shrink'], log, processes, ...(parsed.focus !== undefined ? { focus: parsed.focus } : {}) });
  printSummary(summary);
  return summary.failures.length === 0 ? 0 : 1;
}

function positive(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got ${JSON.stringify(text)}`);
  return n;
}

function printSummary(s: CampaignSummary): void {
  console.log(
    [
      '',
      `programs ${s.programs}, failed ${s.failures.length}${s.failures.length > 0 ? ` (seeds ${s.failures.map((f) => f.seed).join(', ')})` : ''}`,
      `faults injected ${s.faults}, writes ${s.writes}, handler calls ${s.handlerCalls}, user deletes ${s.deletes}`,
      `objects lost ${s.objectsLost}, duplicate deletes ${s.duplicateDeletes}, unexpected exits ${s.unexpectedExits}, worst convergence ${s.worstConvergenceMs} ms after the last fault`,
      `peak heap ${megabytes(s.peakHeapBytes)}, heap after the first program ${megabytes(s.heapBaselineBytes)}, after the last ${megabytes(s.heapEndBytes)}`,
      `time ${(s.durationMs / 1000).toFixed(1)} s`,
    ].join('\n'),
  );
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(2);
  },
);
