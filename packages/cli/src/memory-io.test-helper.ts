/** A CliIo that keeps what a command prints, and answers prompts from a list (a terminal), or has none. */
import type { CliIo } from './cli-io.js';
import { createStyle } from './style.js';

export interface MemoryIo extends CliIo {
  readonly stdout: string[];
  readonly stderr: string[];
  /** The questions asked, in order. */
  readonly questions: string[];
}

/** `answers`: a terminal that answers in this order (then Enter); undefined: not a terminal. */
export function memoryIo(cwd: string, answers?: string[]): MemoryIo {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const questions: string[] = [];
  return {
    cwd,
    env: {},
    stdout,
    stderr,
    questions,
    out: (line) => stdout.push(line),
    err: (line) => stderr.push(line),
    style: createStyle(false),
    ask:
      answers === undefined
        ? undefined
        : async (question) => {
            questions.push(question);
            return answers.shift() ?? '';
          },
  };
}
