/**
 * What `kubeloop init` needs to know: the project's name and its kind. From flags first; on a terminal,
 * a prompt for each value not given (Enter takes the default); otherwise the defaults. Every value is
 * checked as the API server would check it, with a one-line message.
 */
import { basename } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../cli-errors.js';
import { defaultPlural, nameProblems } from '../project/names.js';

export interface InitAnswers {
  /** The npm package name and the name of everything deployed: the directory's name. */
  readonly name: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /** Where the operator is deployed. */
  readonly namespace: string;
}

/** The values given as flags (undefined when not given). */
export type InitFlags = Partial<Record<'group' | 'version' | 'kind' | 'plural' | 'namespace', string>>;

/** The project name of a directory: its base name, which must be a valid npm name and DNS label. */
export function projectNameOf(dir: string): string {
  const name = basename(dir);
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > 52) {
    throw new UsageError(`the directory name ${JSON.stringify(name)} is the project's name: use lower-case letters, digits and - (at most 52)`);
  }
  return name;
}

/** Asks for one value on the terminal until it is valid; Enter takes the default. */
async function ask(io: CliIo, question: string, fallback: string, problem: (value: string) => string | undefined): Promise<string> {
  for (;;) {
    const answer = (await io.ask!(`${question} (${fallback}): `)).trim();
    const value = answer === '' ? fallback : answer;
    const why = problem(value);
    if (why === undefined) return value;
    io.err(`  ${why}`);
  }
}

/** Resolves every answer: flag, else prompt (when `interactive`), else default. */
export async function initAnswers(dir: string, flags: InitFlags, io: CliIo, interactive: boolean): Promise<InitAnswers> {
  const name = projectNameOf(dir);
  const value = async (field: keyof InitFlags, question: string, fallback: string): Promise<string> => {
    const given = flags[field];
    if (given !== undefined) {
      const why = nameProblems[field](given);
      if (why !== undefined) throw new UsageError(`--${field} ${JSON.stringify(given)}: ${why}`);
      return given;
    }
    return interactive ? ask(io, question, fallback, nameProblems[field]) : fallback;
  };
  const kind = await value('kind', 'Kind (PascalCase)', 'Website');
  const group = await value('group', 'API group', 'example.com');
  const version = await value('version', 'API version', 'v1alpha1');
  const plural = await value('plural', 'Plural resource name', defaultPlural(kind));
  const namespace = await value('namespace', 'Namespace to deploy the operator to', `${name}-system`);
  return { name, group, version, kind, plural, namespace };
}
