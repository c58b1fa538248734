/** `kubeloop manifests`: the deployable manifests of the project, on stdout (or into a file). */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { processIo } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../cli-errors.js';
import { runCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { renderManifests } from '../manifests/render-manifests.js';
import { projectCrds } from '../project/generated-files.js';
import { nameProblems } from '../project/names.js';
import { readProjectConfig } from '../project/project-config.js';

export const manifestsCommand = {
  name: 'manifests',
  summary: 'Print the manifests that deploy the operator: CRDs, Namespace, ServiceAccount, RBAC, Deployment.',
  synopsis: '[flags]',
  description: [
    'RBAC covers exactly what the operator uses: its own kinds (with status and finalizers), what it owns',
    '("owns" in package.json "kubeloop"), what it reads ("reads"), Events, and Leases in its namespace.',
    '--replicas N (default 1) sets the Deployment\'s replicas. With N > 1 the Lease Role also grants delete,',
    'which a sharded operator (runOperator `sharding`: each replica owns a share of the objects) needs to',
    'leave its ring at shutdown; a leader-elected operator runs N - 1 standbys. The operator\'s code decides.',
    'Apply them with: npx kubeloop manifests --image <image> | kubectl apply -f -',
  ].join('\n'),
  flags: {
    image: { type: 'string', valueName: '<image>', description: "the operator's container image (default: package.json kubeloop.deploy.image, else <name>:latest)" },
    namespace: { type: 'string', valueName: '<namespace>', description: 'namespace to deploy to (default: kubeloop.deploy.namespace, else <name>-system)' },
    replicas: { type: 'string', valueName: '<n>', description: 'replicas of the Deployment; > 1 adds Lease delete for sharding (default: kubeloop.deploy.replicas, else 1)' },
    out: { type: 'string', short: 'o', valueName: '<file>', description: 'write to this file instead of stdout (default: stdout)' },
    dir: { type: 'string', valueName: '<dir>', description: 'the project directory (default: the current directory)' },
  },
} as const;

function replicasOf(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > 1000) throw new UsageError(`--replicas must be a whole number from 0 to 1000, not ${JSON.stringify(text)}`);
  return Number(text);
}

export async function runManifests(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  return runCommand(manifestsCommand, argv, io, async (flags) => {
    if (flags.image === '') throw new UsageError('--image must not be empty');
    const namespaceProblem = flags.namespace !== undefined ? nameProblems.namespace(flags.namespace) : undefined;
    if (namespaceProblem !== undefined) throw new UsageError(`--namespace ${JSON.stringify(flags.namespace)}: ${namespaceProblem}`);
    const replicas = replicasOf(flags.replicas, 1);
    const config = await readProjectConfig(resolve(io.cwd, flags.dir ?? '.'));
    const deploy = {
      ...config.deploy,
      image: flags.image ?? config.deploy.image,
      namespace: flags.namespace ?? config.deploy.namespace,
      replicas: flags.replicas !== undefined ? replicas : config.deploy.replicas,
    };
    const text = renderManifests({ crds: await projectCrds(config), deploy, owns: config.owns, reads: config.reads }, `The manifests of ${deploy.name}, rendered by kubeloop manifests.`);
    if (flags.out === undefined) {
      for (const line of text.trimEnd().split('\n')) io.out(line);
    } else {
      const path = resolve(io.cwd, flags.out);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
      io.err(`wrote ${flags.out}`);
    }
    return ExitCode.Ok;
  });
}
