/** The `kubeloop-codegen` command line, as a function that returns its exit code (testable in-process). */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import type { CustomResourceDefinition } from '@kubeloop/resource';
import { CodegenError, isCodegenError } from './codegen-error.js';
import { parseCrdDocuments } from './crd-documents.js';
import { generateKindsSource } from './generate-kinds.js';

/** Where the CLI reads and writes. Default: the process's cwd, stdout and stderr. */
export interface CliIo {
  readonly cwd: string;
  stdout(line: string): void;
  stderr(line: string): void;
}

const usage = `Usage: kubeloop-codegen <crd files...> --out <dir|file.ts> [--version <version>]

Generates TypeScript kinds for @kubeloop/resource from CustomResourceDefinition YAML or JSON files.

  --out, -o <path>   a .ts file receives every kind; any other path is a directory that
                     receives one <kind>.ts file per CRD (created when missing)
  --version <v>      generate only this version of every CRD (default: every served version)
  --help, -h         show this help`;

const processIo: CliIo = {
  cwd: process.cwd(),
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
};

/** `BackupSchedule` -> `backup-schedule`, `HTTPRoute` -> `http-route`. */
function kebabCase(kind: string): string {
  return kind
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

function posixRelative(cwd: string, path: string): string {
  return relative(cwd, path).split(sep).join('/');
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function readCrds(cwd: string, file: string): Promise<{ source: string; crds: CustomResourceDefinition[] }> {
  const path = resolve(cwd, file);
  const source = posixRelative(cwd, path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : message(err);
    throw new CodegenError(`cannot read ${file}: ${why}`, { cause: err });
  }
  return { source, crds: parseCrdDocuments(text, source) };
}

/** The files to write: path -> content. Everything is generated before anything is written. */
async function plan(cwd: string, files: readonly string[], out: string, version: string | undefined): Promise<Map<string, string>> {
  const inputs = await Promise.all(files.map((f) => readCrds(cwd, f)));
  const outputs = new Map<string, string>();
  if (out.endsWith('.ts')) {
    const crds = inputs.flatMap((i) => i.crds);
    const origins = inputs.flatMap((i) => i.crds.map(() => i.source));
    outputs.set(resolve(cwd, out), generateKindsSource(crds, { version, sources: inputs.map((i) => i.source), origins }));
    return outputs;
  }
  for (const { source, crds } of inputs) {
    for (const crd of crds) {
      const path = resolve(cwd, out, `${kebabCase(crd.spec!.names.kind)}.ts`);
      if (outputs.has(path)) throw new CodegenError(`two CustomResourceDefinitions would both be written to ${posixRelative(cwd, path)}`);
      outputs.set(path, generateKindsSource([crd], { version, sources: [source], origins: [source] }));
    }
  }
  return outputs;
}

/**
 * Runs `kubeloop-codegen` with `args` (without the node and script paths).
 * @returns the exit code: 0 done, 1 an input could not be generated, 2 a usage error. Errors are
 *   one line on stderr, never a stack trace.
 */
export async function runCodegenCli(args: readonly string[], io: CliIo = processIo): Promise<number> {
  let values: { out?: string | undefined; version?: string | undefined; help?: boolean | undefined };
  let files: string[];
  try {
    const parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: { out: { type: 'string', short: 'o' }, version: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
    values = parsed.values;
    files = parsed.positionals;
  } catch (err) {
    io.stderr(`kubeloop-codegen: ${message(err)}\n\n${usage}`);
    return 2;
  }
  if (values.help) {
    io.stdout(usage);
    return 0;
  }
  if (files.length === 0 || values.out === undefined || values.out === '') {
    io.stderr(`kubeloop-codegen: ${files.length === 0 ? 'no CRD files given' : '--out is required'}\n\n${usage}`);
    return 2;
  }
  try {
    const outputs = await plan(io.cwd, files, values.out, values.version);
    for (const [path, text] of outputs) {
      try {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, text);
      } catch (err) {
        throw new CodegenError(`cannot write ${posixRelative(io.cwd, path)}: ${message(err)}`, { cause: err });
      }
      io.stdout(`wrote ${posixRelative(io.cwd, path)}`);
    }
    return 0;
  } catch (err) {
    io.stderr(`kubeloop-codegen: ${isCodegenError(err) ? '' : 'unexpected error: '}${message(err)}`);
    return 1;
  }
}
