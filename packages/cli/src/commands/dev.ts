/** `kubeloop dev`: a placeholder until the dev loop lands (it is being written on another branch). */
import { processIo } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { CommandFailure } from '../cli-errors.js';
import { runCommand } from '../command.js';

export const devCommand = {
  name: 'dev',
  summary: 'Run the operator on an embedded API server and restart it on every change (not yet available).',
  synopsis: '[flags]',
  flags: {},
} as const;

/** `kubeloop dev`: not yet; exits 1 saying so. */
export async function runDev(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  return runCommand(devCommand, argv, io, async () => {
    throw new CommandFailure('not yet available in this version of kubeloop');
  });
}
