/** `kubeloop generate`: CRDs from kind schemas, TypeScript kinds from CRDs, the manifests; `--check` for CI. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { processIo } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { CommandFailure } from '../cli-errors.js';
import { runCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { planGeneratedFiles } from '../project/generated-files.js';
import { readProjectConfig } from '../project/project-config.js';

export const generateCommand = {
  name: 'generate',
  summary: 'Generate the CRDs from the kind schemas, the TypeScript kinds from the CRDs, and the manifests.',
  synopsis: '[flags]',
  description: [
    'Reads the "kubeloop" section of package.json. Each kind schema (kinds/*.yaml: group, version, kind,',
    'plural, spec and status schemas) becomes a CRD in crds/; each CRD in crds/ (generated or your own)',
    'becomes typed kinds in src/kinds/<kind>.ts; deploy/operator.yaml is rendered from the CRDs.',
    'Files that would not change are not written.',
  ].join('\n'),
  flags: {
    check: { type: 'boolean', description: 'write nothing; exit 1 naming every generated file that is missing or stale (default: write)' },
    dir: { type: 'string', valueName: '<dir>', description: 'the project directory (default: the current directory)' },
  },
} as const;

async function current(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  }
}

export async function runGenerate(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  return runCommand(generateCommand, argv, io, async (flags) => {
    const config = await readProjectConfig(resolve(io.cwd, flags.dir ?? '.'));
    const files = await planGeneratedFiles(config);
    const stale: string[] = [];
    for (const file of files) {
      const path = join(config.root, file.path);
      const before = await current(path);
      if (before === file.content) continue;
      if (flags.check === true) {
        stale.push(`${file.path} (${before === undefined ? 'missing' : 'stale'})`);
        continue;
      }
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.content);
      io.out(`${before === undefined ? 'wrote' : 'updated'} ${file.path}`);
    }
    if (stale.length > 0) throw new CommandFailure(`${stale.length} generated file${stale.length === 1 ? ' is' : 's are'} not up to date: ${stale.join(', ')}; run \`npx kubeloop generate\``);
    io.out(flags.check === true ? `${files.length} generated files are up to date` : `${files.length} generated files up to date`);
    return ExitCode.Ok;
  });
}
