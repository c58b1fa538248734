/** `kubeloop manifests`: the deployable manifests of the project, on stdout. */
import { processIo } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { CommandFailure } from '../cli-errors.js';
import { runCommand } from '../command.js';

export const manifestsCommand = {
  name: 'manifests',
  summary: 'Print the manifests that deploy the operator: CRDs, Namespace, ServiceAccount, RBAC, Deployment.',
  synopsis: '[flags]',
  flags: {
    image: { type: 'string', valueName: '<image>', description: "the operator's container image (default: the project's, see package.json kubeloop.deploy)" },
    namespace: { type: 'string', valueName: '<namespace>', description: 'namespace to deploy to (default: the project\'s)' },
    replicas: { type: 'string', valueName: '<n>', description: 'replicas of the operator; one leads at a time (default: the project\'s, 1)' },
  },
} as const;

export async function runManifests(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  return runCommand(manifestsCommand, argv, io, async () => {
    throw new CommandFailure('not yet implemented');
  });
}
