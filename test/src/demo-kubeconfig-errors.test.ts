/**
 * A bad kubeconfig stops the demo with one line that names the file and where its path came from
 * (`--kubeconfig` or `KUBECONFIG`), not client-node's or js-yaml's stack trace.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO_MAIN } from './support/demo-process.js';
import { TempDirs } from './support/temp-dir.js';

describe('the demo with a bad kubeconfig', () => {
  const temp = new TempDirs();
  after(() => temp.removeAll());

  function demo(args: string[], env: Record<string, string>): { status: number | null; stderr: string } {
    const result = spawnSync(process.execPath, [DEMO_MAIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });
    return { status: result.status, stderr: result.stderr };
  }

  test('a --kubeconfig that does not exist, and a KUBECONFIG that is not YAML: exit 1 with one line each, naming the file and its source', { timeout: 60_000 }, async () => {
    const dir = await temp.make('demo-kubeconfig');
    const missing = join(dir, 'missing');
    const garbage = join(dir, 'garbage.yaml');
    await writeFile(garbage, 'clusters: [unclosed\n  - : :\n');

    const fromFlag = demo(['--kubeconfig', missing, '--work-dir', dir], {});
    assert.equal(fromFlag.status, 1);
    assert.equal(fromFlag.stderr.trim(), `demo failed: kubeconfig ${missing} (from --kubeconfig) does not exist`);

    const fromEnv = demo(['--work-dir', dir], { KUBECONFIG: garbage });
    assert.equal(fromEnv.status, 1);
    assert.match(fromEnv.stderr.trim(), new RegExp(`^demo failed: kubeconfig ${garbage.replace(/[.]/g, '\\.')} \\(from KUBECONFIG\\) cannot be read: [^\\n]+$`));
  });
});
