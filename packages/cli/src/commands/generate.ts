/** `kubeloop generate`: CRDs from kind schemas, TypeScript kinds from CRDs; `--check` for CI. */
import { processIo } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { CommandFailure } from '../cli-errors.js';
import { runCommand } from '../command.js';

export const generateCommand = {
  name: 'generate',
  summary: 'Generate the CRDs from kind schemas and the TypeScript kinds from the CRDs.',
  synopsis: '[flags]',
  flags: {
    check: { type: 'boolean', description: 'write nothing; exit 1 when a generated file is missing or stale (default: write)' },
  },
} as const;

export async function runGenerate(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  return runCommand(generateCommand, argv, io, async () => {
    throw new CommandFailure('not yet implemented');
  });
}
