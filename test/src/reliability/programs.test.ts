/**
 * The randomized reliability suite in CI: the programs of a fixed set of seeds, each against a
 * fresh API server and operator, every invariant checked (see run-program.ts). A failure prints the
 * seed and the shrunk program; `npm run test:reliability -- --seed S` replays it,
 * `npm run test:reliability -- --seeds 500` runs many more.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Campaign } from './campaign.js';
import { CI_PROCESS_SEEDS, CI_SEEDS } from './ci-seeds.js';
import { megabytes } from './heap.js';
import { generateProgram } from './program.js';

describe('reliability: seeded programs of writes and API server faults', () => {
  // One failure is shrunk (within a minute); the others print their seed and whole program.
  const campaign = new Campaign({ shrinkBudgetMs: 60_000, shrinkLimit: 1, log: (line) => console.log(line) });

  after(() => {
    const s = campaign.summary;
    console.log(
      `reliability: ${s.programs} programs, ${s.faults} faults, ${s.writes} writes, ${s.handlerCalls} handler calls, ` +
        `objects lost ${s.objectsLost}, duplicate deletes ${s.duplicateDeletes}, worst convergence ${s.worstConvergenceMs} ms, peak heap ${megabytes(s.peakHeapBytes)}`,
    );
  });

  for (const seed of CI_SEEDS) {
    test(`the program of seed ${seed} converges, in order, with every delete run once and nothing leaked`, { timeout: 150_000 }, async () => {
      const { outcome, failure } = await campaign.run(generateProgram(seed));
      assert.equal(failure, undefined, failure?.report);
      assert.ok(outcome.convergenceMs !== undefined && outcome.handlerCalls > 0, 'the handlers were called and converged');
    });
  }
});

describe('reliability: seeded programs with the API server and the operator each in a process of its own', () => {
  // As users deploy an operator: nothing but the product holds its event loop, the restart fault is a
  // SIGKILL of the server process, and the operator is stopped by SIGTERM at the end.
  const campaign = new Campaign({ shrinkBudgetMs: 60_000, shrinkLimit: 1, processes: true, log: (line) => console.log(line) });

  after(() => {
    const s = campaign.summary;
    console.log(
      `reliability (processes): ${s.programs} programs, ${s.faults} faults, ${s.writes} writes, ${s.handlerCalls} handler calls, ` +
        `objects lost ${s.objectsLost}, duplicate deletes ${s.duplicateDeletes}, unexpected exits ${s.unexpectedExits}, worst convergence ${s.worstConvergenceMs} ms`,
    );
  });

  for (const seed of CI_PROCESS_SEEDS) {
    test(`the program of seed ${seed}, in processes, converges with no process exiting unasked`, { timeout: 150_000 }, async () => {
      const { outcome, failure } = await campaign.run(generateProgram(seed));
      assert.equal(failure, undefined, failure?.report);
      assert.ok(outcome.convergenceMs !== undefined && outcome.handlerCalls > 0, 'the handlers were called and converged');
    });
  }
});
