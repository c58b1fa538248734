/** Every kubeloop command, one line each, in the order `kubeloop --help` lists them. */
import type { CliIo } from './cli-io.js';
import { devCommand, runDev } from './commands/dev.js';
import { generateCommand, runGenerate } from './commands/generate.js';
import { initCommand, runInit } from './commands/init.js';
import { manifestsCommand, runManifests } from './commands/manifests.js';

export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  run(argv: readonly string[], io?: CliIo): Promise<number>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: initCommand.name, summary: initCommand.summary, run: runInit },
  { name: generateCommand.name, summary: generateCommand.summary, run: runGenerate },
  { name: devCommand.name, summary: devCommand.summary, run: runDev },
  { name: manifestsCommand.name, summary: manifestsCommand.summary, run: runManifests },
];
