/**
 * `npm run demo` compiles first (scripts/compile.mjs): a person sees which project is compiling and
 * how many of how many, and a second run says everything is up to date. Checked on a two-project
 * build of its own in a temporary directory, so the workspace's own output is never touched.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TempDirs } from './support/temp-dir.js';

const COMPILE = fileURLToPath(new URL('../../scripts/compile.mjs', import.meta.url));

describe('scripts/compile.mjs', () => {
  const temp = new TempDirs();
  after(() => temp.removeAll());

  async function twoProjects(): Promise<string> {
    const dir = await temp.make('compile-progress');
    const options = { composite: true, strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', rootDir: 'src', outDir: 'dist' };
    await mkdir(join(dir, 'lib', 'src'), { recursive: true });
    await mkdir(join(dir, 'app', 'src'), { recursive: true });
    await writeFile(join(dir, 'lib', 'tsconfig.json'), JSON.stringify({ compilerOptions: options, include: ['src'] }));
    await writeFile(join(dir, 'lib', 'src', 'index.ts'), 'export const answer = 42;\n');
    await writeFile(join(dir, 'app', 'tsconfig.json'), JSON.stringify({ compilerOptions: options, include: ['src'], references: [{ path: '../lib' }] }));
    await writeFile(join(dir, 'app', 'src', 'main.ts'), 'import { answer } from "../../lib/dist/index.js";\nexport const doubled: number = answer * 2;\n');
    return dir;
  }

  function compile(cwd: string): { status: number | null; stderr: string } {
    const result = spawnSync(process.execPath, [COMPILE, 'app'], { cwd, encoding: 'utf8', timeout: 60_000 });
    return { status: result.status, stderr: result.stderr + result.stdout };
  }

  test('says which project it compiles, n of N, then that a second run had nothing to do; a type error fails it with the compiler message', { timeout: 90_000 }, async () => {
    const dir = await twoProjects();
    const first = compile(dir);
    assert.equal(first.status, 0, first.stderr);
    const lines = first.stderr.trim().split('\n');
    assert.match(lines[0]!, /^compiling lib \(1 of 2 projects, \d+\.\d s so far\)\.\.\.$/);
    assert.match(lines[1]!, /^compiling app \(2 of 2 projects, \d+\.\d s so far\)\.\.\.$/);
    assert.match(lines[2]!, /^compiled 2 of 2 projects in \d+\.\d s$/);
    assert.equal(lines.length, 3, first.stderr);

    const second = compile(dir);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stderr.trim(), /^up to date \(2 projects checked in \d+\.\d s\)$/);

    await writeFile(join(dir, 'app', 'src', 'main.ts'), 'export const wrong: number = "text";\n');
    const broken = compile(dir);
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /app\/src\/main\.ts\(1,14\): error TS2322/);
  });
});
