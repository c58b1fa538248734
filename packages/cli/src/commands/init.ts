/** `kubeloop init <dir>`: scaffolds a new operator project, then generates its CRD, types and manifests. */
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { processIo } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { CommandFailure, UsageError } from '../cli-errors.js';
import { runCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { registrySpecs, tarballSpecs, workspaceSpecs } from '../init/dependency-source.js';
import { initAnswers } from '../init/init-answers.js';
import { projectFiles } from '../init/project-files.js';
import { scaffoldNames } from '../init/scaffold-names.js';
import { runGenerate } from './generate.js';

export const initCommand = {
  name: 'init',
  summary: 'Start a new operator project in a directory.',
  synopsis: '<dir> [flags]',
  description: [
    'The project: one kind (its schema in kinds/, its CRD and TypeScript types generated from it), an operator',
    'that owns a Deployment per object, with a finalizer, a Ready condition, leader election, metrics and health,',
    'its tests with the test kit, a Dockerfile and deploy manifests. On a terminal, asks for each value not given',
    'as a flag (Enter takes the default); elsewhere (CI) takes the defaults.',
  ].join('\n'),
  positionals: { min: 0, max: 1 },
  flags: {
    kind: { type: 'string', valueName: '<Kind>', description: 'the kind, PascalCase (default: Website)' },
    group: { type: 'string', valueName: '<group>', description: 'its API group (default: example.com)' },
    version: { type: 'string', valueName: '<version>', description: 'its API version (default: v1alpha1)' },
    plural: { type: 'string', valueName: '<plural>', description: 'its plural resource name (default: from the kind, e.g. websites)' },
    namespace: { type: 'string', valueName: '<namespace>', description: 'namespace the operator is deployed to (default: <dir name>-system)' },
    force: { type: 'boolean', description: 'write into a directory that is not empty, replacing files of the same names (default: refuse)' },
    yes: { type: 'boolean', short: 'y', description: 'take the defaults without asking, also on a terminal (default: ask on a terminal)' },
    packages: { type: 'string', valueName: '<dir>', description: "depend on the tarballs in this folder (from `npm run pack:all`) instead of the registry's packages" },
    local: { type: 'boolean', description: "depend on this clone's workspace packages (default: the registry's, at this CLI's version)" },
  },
} as const;

/** Fails unless `dir` is missing, or an empty directory, or `force`. */
async function checkTarget(dir: string, shown: string, force: boolean): Promise<void> {
  let entries: string[];
  try {
    if (!(await stat(dir)).isDirectory()) throw new CommandFailure(`${shown} exists and is not a directory`);
    entries = await readdir(dir);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return;
    throw error;
  }
  if (entries.length > 0 && !force) {
    throw new CommandFailure(`${shown} is not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}); choose a new directory, or pass --force to write into it`);
  }
}

export async function runInit(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  return runCommand(initCommand, argv, io, async (flags, positionals) => {
    const interactive = io.ask !== undefined && flags.yes !== true;
    let dir = positionals[0];
    if (dir === undefined && interactive) dir = (await io.ask('Project directory (my-operator): ')).trim() || 'my-operator';
    if (dir === undefined || dir === '') throw new UsageError('missing argument: <dir>, the directory of the new project');
    if (flags.local === true && flags.packages !== undefined) throw new UsageError('--local and --packages exclude each other');
    const target = resolve(io.cwd, dir);
    await checkTarget(target, dir, flags.force === true);
    const specs = flags.packages !== undefined ? tarballSpecs(resolve(io.cwd, flags.packages)) : flags.local === true ? workspaceSpecs() : registrySpecs();
    const names = scaffoldNames(await initAnswers(target, flags, io, interactive));

    for (const [path, content] of projectFiles(names, specs, flags.packages !== undefined)) {
      await mkdir(dirname(join(target, path)), { recursive: true });
      await writeFile(join(target, path), content);
      io.out(`wrote ${path}`);
    }
    const generated = await runGenerate(['--dir', target], io);
    if (generated !== ExitCode.Ok) return generated;

    const { style } = io;
    const cd = relative(io.cwd, target) || '.';
    io.out('');
    io.out(style.green(`Created ${names.name}: an operator for ${names.kind} (${names.plural}.${names.group}/${names.version}).`));
    io.out('Next:');
    io.out(style.bold(`  cd ${cd.includes(' ') ? JSON.stringify(cd) : cd}`));
    io.out(style.bold('  npm install'));
    io.out(`${style.bold('  npm test')}         ${style.dim('# its tests, on an embedded API server')}`);
    io.out(`${style.bold('  npm run dev')}      ${style.dim('# the operator on an embedded API server, restarted when you save')}`);
    return ExitCode.Ok;
  });
}
