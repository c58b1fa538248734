/** `kubeloop init <dir>`: scaffolds a new operator project. */
import { processIo } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { CommandFailure } from '../cli-errors.js';
import { runCommand } from '../command.js';

export const initCommand = {
  name: 'init',
  summary: 'Start a new operator project in a directory.',
  synopsis: '<dir> [flags]',
  positionals: { min: 0, max: 1 },
  flags: {
    group: { type: 'string', valueName: '<group>', description: 'API group of the kind (default: example.com)' },
    version: { type: 'string', valueName: '<version>', description: 'API version of the kind (default: v1alpha1)' },
    kind: { type: 'string', valueName: '<Kind>', description: 'the kind, PascalCase (default: Website)' },
    plural: { type: 'string', valueName: '<plural>', description: 'its plural resource name (default: the kind in lower case plus s)' },
    namespace: { type: 'string', valueName: '<namespace>', description: 'namespace the operator is deployed to (default: <project>-system)' },
    force: { type: 'boolean', description: 'write into a directory that is not empty (default: refuse)' },
    yes: { type: 'boolean', short: 'y', description: 'take the defaults without asking, also on a terminal (default: ask on a terminal)' },
  },
} as const;

export async function runInit(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  return runCommand(initCommand, argv, io, async () => {
    throw new CommandFailure('not yet implemented');
  });
}
