/**
 * Scenario 8, `kubeloop dev`: a project scaffolded by `kubeloop init --local` (this clone's packages), the
 * real CLI started as a user starts it. Two figures, as the user sees them on standard output: the time
 * from the end of the first compile to the operator being ready (the CLI's own figure, printed in its
 * `operator ready in N ms` line; plus the wall time from the command's start), and the time from a saved
 * edit (the file written here) to the CLI reporting the restarted operator ready.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFile, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatMillis, formatSpread } from '../report/format.js';
import type { ScenarioReport } from '../report/scenario-report.js';
import { median, spread } from '../stats.js';

const ROOT = new URL('../../../../', import.meta.url).pathname;
const KUBELOOP = join(ROOT, 'packages/cli/bin/kubeloop.js');

/** Options of scenario 8. */
export interface DevLoopBenchOptions {
  /** Fresh `kubeloop dev` processes (the first on an empty data folder, the others on the kept data). */
  starts: number;
  /** Saved edits per start. */
  edits: number;
  log: (line: string) => void;
}

/** One `kubeloop dev` process. */
export interface DevLoopRun {
  /** The CLI's figure: end of the first compile to the operator ready. */
  readyAfterCompileMs: number;
  /** Spawning `kubeloop dev` to its `operator ready` line. */
  readyAfterCommandMs: number;
  /** Each edit: the file written to the `operator restarted` line. */
  editToReadyMs: number[];
}

/** Machine-readable outcome of scenario 8. */
export interface DevLoopData {
  readyAfterCompileMs: number;
  readyAfterCommandMs: number;
  editToReadyMs: number;
  runs: DevLoopRun[];
}

/** `kubeloop dev` as a child, its standard output read line by line. */
class DevProcess {
  private output = '';
  private readonly waiters: { pattern: RegExp; from: number; resolve: (m: RegExpMatchArray) => void }[] = [];
  readonly child: ChildProcess;

  constructor(cwd: string) {
    this.child = spawn(process.execPath, [KUBELOOP, 'dev'], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
      for (const w of [...this.waiters]) this.check(w);
    });
    this.child.stderr?.resume();
  }

  /** Resolves with the first match of `pattern` in the output written after `from` characters. */
  next(pattern: RegExp, timeoutMs: number, from = this.output.length): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`kubeloop dev: no ${String(pattern)} within ${timeoutMs} ms; output:\n${this.output.slice(-2_000)}`)), timeoutMs);
      const waiter = { pattern, from, resolve: (m: RegExpMatchArray) => (clearTimeout(timer), resolve(m)) };
      this.waiters.push(waiter);
      this.check(waiter);
    });
  }

  get length(): number {
    return this.output.length;
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    if (this.child.exitCode === null && this.child.pid !== undefined) process.kill(-this.child.pid, 'SIGINT');
    const timer = setTimeout(() => this.child.pid !== undefined && process.kill(-this.child.pid, 'SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }

  private check(w: { pattern: RegExp; from: number; resolve: (m: RegExpMatchArray) => void }): void {
    const match = this.output.slice(w.from).match(w.pattern);
    if (match === null) return;
    this.waiters.splice(this.waiters.indexOf(w), 1);
    w.resolve(match);
  }
}

/** Scaffolds the project with the real CLI; its node_modules is the repository's. */
async function scaffold(work: string): Promise<string> {
  const child = spawn(process.execPath, [KUBELOOP, 'init', 'bench-operator', '--local', '--yes'], { cwd: work, stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`kubeloop init exited with ${code}`);
  const project = join(work, 'bench-operator');
  await symlink(join(ROOT, 'node_modules'), join(project, 'node_modules'));
  return project;
}

async function oneStart(project: string, edits: number): Promise<DevLoopRun> {
  const started = performance.now();
  const dev = new DevProcess(project);
  try {
    const [, readyMs] = await dev.next(/^operator ready in (\d+) ms/m, 120_000, 0);
    const readyAfterCommandMs = performance.now() - started;
    const editToReadyMs: number[] = [];
    for (let i = 0; i < edits; i++) {
      // Let the type-check and the next warm process settle, as between two saves.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const from = dev.length;
      const written = performance.now();
      await appendFile(join(project, 'src/operator.ts'), `\n// edit ${i}\n`);
      await dev.next(/^operator restarted, ready \d+ ms after the change/m, 60_000, from);
      editToReadyMs.push(performance.now() - written);
    }
    return { readyAfterCompileMs: Number(readyMs), readyAfterCommandMs, editToReadyMs };
  } finally {
    await dev.stop();
  }
}

/** Runs scenario 8. */
export async function runDevLoopBench(options: DevLoopBenchOptions): Promise<ScenarioReport<DevLoopData>> {
  const work = await mkdtemp(join(tmpdir(), 'kubeloop-bench-dev-'));
  const runs: DevLoopRun[] = [];
  try {
    const project = await scaffold(work);
    for (let i = 0; i < options.starts; i++) {
      const run = await oneStart(project, options.edits);
      runs.push(run);
      options.log(`  start ${i + 1}/${options.starts}: ready ${formatMillis(run.readyAfterCompileMs)} after the compile; edits: ${run.editToReadyMs.map(formatMillis).join(', ')}`);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const edits = runs.flatMap((r) => r.editToReadyMs);
  const data: DevLoopData = {
    readyAfterCompileMs: median(runs.map((r) => r.readyAfterCompileMs)),
    readyAfterCommandMs: median(runs.map((r) => r.readyAfterCommandMs)),
    editToReadyMs: median(edits),
    runs,
  };
  return {
    id: 'dev-loop',
    title: '8. kubeloop dev',
    setup: `A project made by \`kubeloop init --local\`; ${options.starts} fresh \`kubeloop dev\` processes (the first on an empty data folder), ${options.edits} saved edits of src/operator.ts each, 1.5 s apart; times as the user sees them on standard output; median [min, max].`,
    columns: ['Figure', 'time'],
    rows: [
      ['first compile -> operator ready', formatSpread(spread(runs.map((r) => r.readyAfterCompileMs)), formatMillis)],
      ['`kubeloop dev` started -> operator ready', formatSpread(spread(runs.map((r) => r.readyAfterCommandMs)), formatMillis)],
      ['edit saved -> operator running again', formatSpread(spread(edits), formatMillis)],
    ],
    notes: [
      'A restart runs the new build in a process started ahead of time, which has loaded the libraries already; tsc --noEmit runs after the restart, at low priority, beside the operator.',
    ],
    chart: {
      title: '8. kubeloop dev',
      subtitle: 'milliseconds, lower is better',
      bars: [
        { label: 'compile -> ready', value: data.readyAfterCompileMs, emphasis: true },
        { label: 'command -> ready', value: data.readyAfterCommandMs, emphasis: true },
        { label: 'edit -> running again', value: data.editToReadyMs, emphasis: true },
      ],
      format: (v) => `${Math.round(v)} ms`,
    },
    data,
  };
}
