/**
 * What every kubeloop command shares: its flags declared once (parsed with node:util's parseArgs, strict),
 * `--help` generated from them, and the one place that turns errors into one line and an exit code.
 */
import { parseArgs } from 'node:util';
import { isKubeloopError } from '@kubeloop/resource';
import type { CliIo } from './cli-io.js';
import { isUsageError, UsageError } from './cli-errors.js';
import { ExitCode } from './exit-codes.js';

/** One flag of a command. */
export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  /** A one-letter alias (`-o`). Default: none. */
  readonly short?: string | undefined;
  /** The placeholder in the help (`<dir>`). Default: `<value>` for a string flag. */
  readonly valueName?: string | undefined;
  /** One line for the help, saying the default. */
  readonly description: string;
}

/** A command's name, its help and its flags. */
export interface CommandSpec<F extends Record<string, FlagSpec>> {
  /** `init`, `generate`... */
  readonly name: string;
  /** One line, for `kubeloop --help`. */
  readonly summary: string;
  /** The usage line after `kubeloop <name>`, e.g. `<dir> [flags]`. */
  readonly synopsis: string;
  /** Paragraphs printed under the usage line. Default: none. */
  readonly description?: string | undefined;
  readonly flags: F;
  /** How many positional arguments the command takes. Default: none. */
  readonly positionals?: { readonly min: number; readonly max: number } | undefined;
}

/** The parsed flags: booleans for boolean flags, strings for string flags, undefined when not given. */
export type FlagValues<F extends Record<string, FlagSpec>> = { [K in keyof F]?: F[K]['type'] extends 'boolean' ? boolean : string };

/** The help text of a command. */
export function helpOf<F extends Record<string, FlagSpec>>(spec: CommandSpec<F>): string {
  const rows = Object.entries(spec.flags).map(([name, flag]) => {
    const value = flag.type === 'string' ? ` ${flag.valueName ?? '<value>'}` : '';
    return [`${flag.short !== undefined ? `-${flag.short}, ` : ''}--${name}${value}`, flag.description] as const;
  });
  rows.push(['-h, --help', 'show this help']);
  const width = Math.max(...rows.map(([left]) => left.length));
  const lines = [`Usage: kubeloop ${spec.name} ${spec.synopsis}`.trimEnd(), '', spec.summary];
  if (spec.description !== undefined) lines.push('', spec.description);
  lines.push('', 'Flags:', ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`));
  lines.push('', 'Exit codes: 0 ok, 1 failure, 2 usage error.');
  return lines.join('\n');
}

/** node:util's message, first sentence only (its advice about `--` is noise here). */
function parseMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split(/\.\s/)[0] ?? text;
}

/** Parses `argv` by `spec`; a usage error for an unknown flag, a missing value or a wrong number of arguments. */
export function parseCommandArgs<F extends Record<string, FlagSpec>>(spec: CommandSpec<F>, argv: readonly string[]): { values: FlagValues<F> & { help?: boolean }; positionals: string[] } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, flag] of Object.entries(spec.flags)) options[name] = flag.short !== undefined ? { type: flag.type, short: flag.short } : { type: flag.type };
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(parseMessage(error));
  }
  const values = parsed.values as FlagValues<F> & { help?: boolean };
  if (values.help !== true) {
    const { min, max } = spec.positionals ?? { min: 0, max: 0 };
    const count = parsed.positionals.length;
    if (count > max) throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[max])}`);
    if (count < min) throw new UsageError(`missing argument: ${spec.synopsis.split(' ')[count] ?? 'an argument'}`);
  }
  return { values, positionals: parsed.positionals };
}

/** The first line of a message (a YAML parser's adds the source line and a caret below: the position is in the first). */
function firstLine(message: string): string {
  const [first = ''] = message.split('\n');
  return first.replace(/:\s*$/, '');
}

/**
 * Runs one command: `--help` prints its help (exit 0); a usage error prints one line and the hint to
 * `--help` (exit 2); any other error prints one line (exit 1), with the stack only when KUBELOOP_DEBUG is set.
 */
export async function runCommand<F extends Record<string, FlagSpec>>(
  spec: CommandSpec<F>,
  argv: readonly string[],
  io: CliIo,
  body: (values: FlagValues<F>, positionals: string[]) => Promise<number>,
): Promise<number> {
  try {
    const { values, positionals } = parseCommandArgs(spec, argv);
    if (values.help === true) {
      io.out(helpOf(spec));
      return ExitCode.Ok;
    }
    return await body(values, positionals);
  } catch (error) {
    const prefix = `kubeloop ${spec.name}: `;
    if (isUsageError(error)) {
      io.err(`${prefix}${error.message}`);
      io.err(`Run 'kubeloop ${spec.name} --help' for usage.`);
      return ExitCode.Usage;
    }
    io.err(`${prefix}${isKubeloopError(error) ? '' : 'unexpected error: '}${firstLine(error instanceof Error ? error.message : String(error))}`);
    if ((io.env['KUBELOOP_DEBUG'] ?? '') !== '' && error instanceof Error && error.stack !== undefined) io.err(error.stack);
    return ExitCode.Failure;
  }
}
