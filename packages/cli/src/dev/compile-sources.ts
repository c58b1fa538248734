/**
 * Turns the project's `src/**\/*.ts` (tests left out) into JavaScript under the build folder, file by file,
 * without type-checking (that runs beside, see `type-check.ts`): with esbuild when the project can load
 * it (a few milliseconds), else with TypeScript's `transpileModule` (the project always has TypeScript).
 * Imports keep resolving from the project's node_modules: the build folder is inside the project.
 */
import { mkdir, readdir, rm, writeFile, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { CommandFailure } from '../cli-errors.js';
import { importFromProject } from './project-module.js';

/** What compiled the sources. */
export type CompilerName = 'esbuild' | 'typescript';

/** One compile: which tool, how long it took, and the first error (a syntax error) when it failed. */
export interface CompileResult {
  readonly ok: boolean;
  readonly ms: number;
  readonly files: number;
  readonly error?: string | undefined;
}

/** Compiles a project's sources into `outDir`; reuse it for every recompile (the compiler stays loaded). */
export interface SourceCompiler {
  readonly name: CompilerName;
  compile(): Promise<CompileResult>;
}

interface EsbuildModule {
  build(options: Record<string, unknown>): Promise<{ errors: { text: string; location?: { file: string; line: number; column: number } | null }[] }>;
}

interface TypeScriptModule {
  transpileModule(input: string, options: { compilerOptions: Record<string, unknown>; fileName: string; reportDiagnostics?: boolean }): {
    outputText: string;
    sourceMapText?: string;
    diagnostics?: { messageText: string | { messageText: string }; start?: number }[];
  };
  ModuleKind: { ESNext: number };
  ScriptTarget: { ES2022: number };
}

/** Every `.ts` file under `dir` except tests and declarations, relative to `dir`. */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !/\.test(-helper)?\.ts$/.test(e.name))
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** The compiler for the project at `root`: esbuild when it resolves from there, else TypeScript. */
export async function createSourceCompiler(root: string, srcDir: string, outDir: string): Promise<SourceCompiler> {
  const esbuild = await importFromProject<EsbuildModule>(root, 'esbuild');
  if (esbuild !== undefined && typeof esbuild.build === 'function') return esbuildCompiler(esbuild, srcDir, outDir);
  const ts = await importFromProject<{ default?: TypeScriptModule } & TypeScriptModule>(root, 'typescript');
  const typescript = ts?.default ?? ts;
  if (typescript === undefined || typeof typescript.transpileModule !== 'function') {
    throw new CommandFailure('neither esbuild nor typescript can be loaded from this project: run `npm install` first');
  }
  return typescriptCompiler(typescript, srcDir, outDir);
}

function esbuildCompiler(esbuild: EsbuildModule, srcDir: string, outDir: string): SourceCompiler {
  return {
    name: 'esbuild',
    async compile() {
      const started = performance.now();
      const files = await sourceFiles(srcDir);
      await rm(outDir, { recursive: true, force: true });
      try {
        await esbuild.build({
          entryPoints: files.map((f) => join(srcDir, f)),
          outdir: outDir,
          outbase: srcDir,
          bundle: false,
          format: 'esm',
          platform: 'node',
          target: 'node20',
          sourcemap: true,
          logLevel: 'silent',
        });
      } catch (error) {
        const first = (error as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors?.[0];
        const where = first?.location ? `${first.location.file}:${first.location.line}:${first.location.column}: ` : '';
        return { ok: false, ms: performance.now() - started, files: files.length, error: first ? `${where}${first.text}` : String(error) };
      }
      return { ok: true, ms: performance.now() - started, files: files.length };
    },
  };
}

function typescriptCompiler(ts: TypeScriptModule, srcDir: string, outDir: string): SourceCompiler {
  // ESNext, not NodeNext: transpileModule sees no package.json, and NodeNext would then write CommonJS.
  const compilerOptions = { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: true, verbatimModuleSyntax: true };
  return {
    name: 'typescript',
    async compile() {
      const started = performance.now();
      const files = await sourceFiles(srcDir);
      await rm(outDir, { recursive: true, force: true });
      for (const file of files) {
        const input = await readFile(join(srcDir, file), 'utf8');
        const out = ts.transpileModule(input, { compilerOptions, fileName: file, reportDiagnostics: true });
        const problem = out.diagnostics?.[0];
        if (problem !== undefined) {
          const text = typeof problem.messageText === 'string' ? problem.messageText : problem.messageText.messageText;
          return { ok: false, ms: performance.now() - started, files: files.length, error: `${join(srcDir, file)}: ${text}` };
        }
        const target = join(outDir, file.replace(/\.ts$/, '.js'));
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, out.outputText);
        if (out.sourceMapText !== undefined) await writeFile(`${target}.map`, out.sourceMapText);
      }
      return { ok: true, ms: performance.now() - started, files: files.length };
    },
  };
}
