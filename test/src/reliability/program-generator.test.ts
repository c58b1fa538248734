/**
 * The generator: a seed gives one program, and the targeted scenarios (see SCENARIO_WEIGHTS in
 * program.ts) appear in the programs with the shapes that make them bite.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CI_SEEDS } from './ci-seeds.js';
import { generateProgram } from './program.js';
import type { Program, Step } from './program.js';

const programs: Program[] = Array.from({ length: 100 }, (_, i) => generateProgram(i + 1));
const all: Step[] = programs.flatMap((p) => p.steps);

describe('reliability program generator', () => {
  test('a seed gives the same program every time, and seeds give different programs', () => {
    assert.deepEqual(generateProgram(42), generateProgram(42));
    assert.notDeepEqual(generateProgram(42).steps, generateProgram(43).steps);
  });

  test('some gaps force-delete an object and create it again under the same name (another uid for the 410 relist to find)', () => {
    const recreated = all.filter((s) => s.op === 'gap' && s.writes.some((w, i) => w.op === 'forceDelete' && s.writes.slice(i + 1).some((later) => later.op === 'create' && later.target === w.target)));
    assert.ok(recreated.length >= 5, `${recreated.length} gaps recreate an object`);
  });

  test('bursts of updates of one object run while the handlers are slow, and the slowness is turned off again', () => {
    let bursts = 0;
    for (const { steps } of programs) {
      steps.forEach((s, i) => {
        if (s.op !== 'slowHandlers' || s.ms === 0) return;
        const end = steps.findIndex((t, j) => j > i && t.op === 'slowHandlers' && t.ms === 0);
        assert.ok(end > i, 'slow handlers are turned off within the scenario');
        const updated = steps.slice(i, end).flatMap((t) => (t.op === 'updateSpec' || t.op === 'updateStatus' ? [`${t.target.kind}/${t.target.name}`] : []));
        assert.ok(updated.length >= 5 && new Set(updated).size === 1, `a burst updates one object at least 5 times: ${updated.join(', ')}`);
        bursts++;
      });
    }
    assert.ok(bursts >= 5, `${bursts} bursts`);
  });

  test('held deletes are followed straight away by a restart of the API server', () => {
    const raced = programs.flatMap((p) => p.steps.filter((s, i) => s.op === 'restart' && p.steps.slice(Math.max(0, i - 2), i).some((t) => t.op === 'deleteHeld')));
    assert.ok(raced.length >= 5, `${raced.length} restarts right after a held delete`);
  });

  test('labels move objects into and out of tier=web, and 429 bursts with Retry-After hit writes', () => {
    const intoWeb = all.filter((s) => s.op === 'setLabels' && s.labels['tier'] === 'web');
    const outOfWeb = all.filter((s) => s.op === 'setLabels' && s.labels['tier'] !== 'web');
    assert.ok(intoWeb.length >= 20 && outOfWeb.length >= 20, `${intoWeb.length} into, ${outOfWeb.length} out of tier=web`);
    const throttled = all.filter((s) => s.op === 'failNext' && s.status === 429 && s.count >= 4 && s.retryAfterSeconds !== undefined && (s.verb === 'update' || s.verb === 'patch'));
    assert.ok(throttled.length >= 5, `${throttled.length} bursts of 429 on writes`);
  });

  test('the seeds CI runs include targeted scenarios', () => {
    const ci = CI_SEEDS.flatMap((seed) => generateProgram(seed).steps);
    assert.ok(ci.some((s) => s.op === 'slowHandlers') || ci.some((s) => s.op === 'failNext' && s.status === 429 && s.count >= 4), 'a burst or a 429 burst in the CI seeds');
  });
});
