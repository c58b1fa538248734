/** Where a command reads and writes: the process's by default, an in-memory one in tests. */
import { createInterface } from 'node:readline/promises';
import { colourWanted, createStyle } from './style.js';
import type { Style } from './style.js';

export interface CliIo {
  /** The directory relative paths are resolved against. */
  readonly cwd: string;
  /** The environment (NO_COLOR, KUBECONFIG...). */
  readonly env: NodeJS.ProcessEnv;
  /** Writes one line to standard output. */
  out(line: string): void;
  /** Writes one line to standard error. */
  err(line: string): void;
  /** Styles for `out`: plain unless standard output is a terminal. */
  readonly style: Style;
  /** Asks one question and resolves with the answer; undefined when standard input is not a terminal (no prompts then). */
  readonly ask: ((question: string) => Promise<string>) | undefined;
}

/** Asks on the process's terminal, one readline interface per question (so nothing keeps stdin open in between). */
async function askOnTerminal(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

/** The process's io: `process.cwd()`, stdout and stderr, colour only on a terminal, prompts only when stdin is one. */
export function processIo(): CliIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    style: createStyle(colourWanted(process.stdout, process.env)),
    ask: process.stdin.isTTY ? askOnTerminal : undefined,
  };
}
