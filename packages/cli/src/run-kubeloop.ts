/** `kubeloop <command> [flags]`: finds the command and runs it; `--help`, `--version` and `help <command>` here. */
import { processIo } from './cli-io.js';
import type { CliIo } from './cli-io.js';
import { COMMANDS } from './command-table.js';
import { ExitCode } from './exit-codes.js';
import { kubeloopVersion } from './version.js';


function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: kubeloop <command> [flags]',
    '',
    'Kubernetes operators in TypeScript: start one, keep its kinds and CRDs in step, deploy it.',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "Run 'kubeloop <command> --help' for a command's flags.",
    'Flags: -h, --help (this help), -v, --version (the version).',
    'Exit codes: 0 ok, 1 failure, 2 usage error.',
  ].join('\n');
}

/** Runs `kubeloop` with `argv` (without the node and script paths); resolves with the exit code. */
export async function runKubeloop(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.err(topHelp());
    return ExitCode.Usage;
  }
  if (first === '--help' || first === '-h') {
    io.out(topHelp());
    return ExitCode.Ok;
  }
  if (first === '--version' || first === '-v') {
    io.out(kubeloopVersion());
    return ExitCode.Ok;
  }
  if (first === 'help') {
    if (rest[0] === undefined) {
      io.out(topHelp());
      return ExitCode.Ok;
    }
    return runKubeloop([rest[0], '--help'], io);
  }
  const command = COMMANDS.find((c) => c.name === first);
  if (command === undefined) {
    const what = first.startsWith('-') ? `unknown flag ${JSON.stringify(first)}` : `unknown command ${JSON.stringify(first)}`;
    io.err(`kubeloop: ${what} (commands: ${COMMANDS.map((c) => c.name).join(', ')})`);
    io.err("Run 'kubeloop --help' for usage.");
    return ExitCode.Usage;
  }
  return command.run(rest, io);
}
