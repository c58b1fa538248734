import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createSourceCompiler } from './compile-sources.js';

const repoModules = fileURLToPath(new URL('../../../../node_modules', import.meta.url));
const run = promisify(execFile);

/** A strict ESM project with two modules, a type-only import and a test file; node_modules holds only `tools`. */
async function project(dirs: string[], tools: readonly string[]): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'kubeloop-compile-'));
  dirs.push(root);
  await mkdir(join(root, 'src/lib'), { recursive: true });
  await mkdir(join(root, 'node_modules'));
  for (const tool of tools) await symlink(join(repoModules, tool), join(root, 'node_modules', tool));
  await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'p', type: 'module' }));
  await writeFile(join(root, 'src/lib/greeting.ts'), 'export interface Greeting { text: string }\nexport const hello = (name: string): string => `hello ${name}`;\n');
  await writeFile(join(root, 'src/main.ts'), "import type { Greeting } from './lib/greeting.js';\nimport { hello } from './lib/greeting.js';\nconst g: Greeting = { text: hello('dev') };\nconsole.log(g.text, import.meta.url.endsWith('/main.js'));\n");
  await writeFile(join(root, 'src/main.test.ts'), 'this is not compiled;\n');
  return root;
}

describe('createSourceCompiler', () => {
  const dirs: string[] = [];
  after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  for (const [tool, tools] of [
    ['typescript', ['typescript']],
    ['esbuild', ['esbuild', '@esbuild', 'typescript']],
  ] as const) {
    test(`with ${tool}: compiles src/ to ES modules that run, leaving tests out`, async () => {
      const root = await project(dirs, tools);
      const compiler = await createSourceCompiler(root, join(root, 'src'), join(root, '.kubeloop/build'));
      assert.equal(compiler.name, tool);
      const result = await compiler.compile();
      assert.deepEqual([result.ok, result.files], [true, 2]);
      const { stdout } = await run(process.execPath, [join(root, '.kubeloop/build/main.js')], { timeout: 30_000 });
      assert.equal(stdout, 'hello dev true\n');
    });

    test(`with ${tool}: a syntax error fails the compile, naming the file`, async () => {
      const root = await project(dirs, tools);
      await writeFile(join(root, 'src/lib/greeting.ts'), 'export const = 1;\n');
      const result = await (await createSourceCompiler(root, join(root, 'src'), join(root, 'out'))).compile();
      assert.equal(result.ok, false);
      assert.match(result.error ?? '', /greeting\.ts/);
    });
  }

  test('a project with neither tool gets one line saying to install', async () => {
    const root = await project(dirs, []);
    await assert.rejects(createSourceCompiler(root, join(root, 'src'), join(root, 'out')), /neither esbuild nor typescript can be loaded from this project: run `npm install` first/);
  });
});
