/** `kubeloop dev`: the operator on the embedded API server (or a real cluster), restarted when a source changes. */
import { resolve } from 'node:path';
import { processIo } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../cli-errors.js';
import { runCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { readProjectConfig } from '../project/project-config.js';
import { DevLoop } from '../dev/dev-loop.js';
import type { StatusOutput } from '../dev/live-status.js';

export const devCommand = {
  name: 'dev',
  summary: 'Run the operator on an embedded API server and restart it on every change.',
  synopsis: '[flags]',
  description: [
    'Starts the embedded API server (a simulated cluster: Deployments get Pods that become Ready) with its data in',
    '.kubeloop/data (kept across runs), installs the CRDs, compiles src/ (esbuild when the project has it, else',
    'TypeScript without type-checking) and runs src/main.ts, restarting it when a file in src/ changes; tsc --noEmit',
    'runs beside. Prints the KUBECONFIG to use with kubectl, the metrics and status page URLs, and a live status.',
    'Ctrl-C stops everything. The operator gets --kubeconfig <file> and --metrics-port <port>.',
  ].join('\n'),
  flags: {
    dir: { type: 'string', valueName: '<dir>', description: 'the project (default: the current directory)' },
    kubeconfig: { type: 'string', valueName: '<file>', description: 'run against this cluster instead of the embedded API server (default: embedded)' },
    'api-port': { type: 'string', valueName: '<port>', description: "the embedded API server's port (default: any free port)" },
  },
} as const;

/** Standard output as the live status wants it. */
function processOutput(io: CliIo): StatusOutput {
  return { write: (text) => process.stdout.write(text), isTTY: process.stdout.isTTY === true, style: io.style };
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--api-port ${JSON.stringify(value)} is not a port number`);
  return port;
}

/** Resolves on the first SIGINT or SIGTERM; a second one kills the operator at once and exits 130. */
function untilInterrupted(onForce: () => void): { done: Promise<NodeJS.Signals>; dispose(): void } {
  let count = 0;
  let resolveDone!: (signal: NodeJS.Signals) => void;
  const done = new Promise<NodeJS.Signals>((r) => (resolveDone = r));
  const listener = (signal: NodeJS.Signals): void => {
    count++;
    if (count === 1) resolveDone(signal);
    else {
      onForce();
      process.exit(130);
    }
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
  return {
    done,
    dispose: () => {
      process.off('SIGINT', listener);
      process.off('SIGTERM', listener);
    },
  };
}

export async function runDev(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  return runCommand(devCommand, argv, io, async (flags) => {
    const apiPort = parsePort(flags['api-port']);
    if (flags.kubeconfig !== undefined && apiPort !== undefined) throw new UsageError('--api-port is for the embedded API server: not with --kubeconfig');
    const config = await readProjectConfig(resolve(io.cwd, flags.dir ?? '.'));
    const loop = new DevLoop({ config, kubeconfig: flags.kubeconfig, apiPort, output: processOutput(io) });
    const lastResort = (): void => loop.killNow();
    process.on('exit', lastResort);
    const interrupt = untilInterrupted(lastResort);
    try {
      await Promise.race([loop.start(), interrupt.done]);
      const signal = await interrupt.done;
      io.out(`received ${signal}: stopping the operator and the API server (again to force)`);
    } finally {
      await loop.stop();
      interrupt.dispose();
      process.off('exit', lastResort);
    }
    io.out('stopped');
    return ExitCode.Ok;
  });
}
