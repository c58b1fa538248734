/**
 * Test support for the demo tests: run the compiled demo (`examples/playlist-operator/dist/main.js`)
 * as a child process and read its output line by line.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineKind } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { exitOf, exitWithin } from './child-exit.js';
import type { Exit } from './child-exit.js';
import { collectLines } from './node-process.js';
import { waitFor } from './wait-for.js';

/** The compiled demo entry point (`tsc -b` builds it with the rest of the tree). */
export const DEMO_MAIN = fileURLToPath(new URL('../../../examples/playlist-operator/dist/main.js', import.meta.url));

/** The status the demo writes on a Playlist. */
export interface PlaylistStatus {
  conditions?: { type: string; status: string; observedGeneration?: number }[];
}

/** The spec of a Playlist. */
export interface PlaylistSpec {
  title: string;
  interval: string;
  items: { type: string; value: string }[];
}

/** A Playlist object. */
export type Playlist = KubeObject<PlaylistSpec, PlaylistStatus>;

/** The demo's Playlist kind, as another client sees it. */
export const PlaylistKind = defineKind<PlaylistSpec, PlaylistStatus>({
  group: 'playlist.kubeloop.dev',
  version: 'v1',
  kind: 'Playlist',
});

/** Leader election timings of a demo process, in milliseconds. */
export interface DemoLeaseTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** Options of {@link demoOperatorArgs}. */
export interface DemoOperatorArgs {
  kubeconfig: string;
  identity: string;
  /** The work directory is `<dir>/<identity>`: a restarted process with the same identity finds its catalogue again. */
  dir: string;
  workDelayMs: number;
  /** `--reconcile-log` (see reconcile-record.ts). */
  reconcileLog: string;
  lease: DemoLeaseTimings;
  /** `--lease-name`: one per test, so that no test finds the lease of an earlier test's (killed) leader. */
  leaseName: string;
}

/** The command line of the demo running as an operator only (no samples, no tour) against a test server. */
export function demoOperatorArgs(o: DemoOperatorArgs): string[] {
  return [
    '--kubeconfig', o.kubeconfig, '--no-samples', '--identity', o.identity, '--work-dir', join(o.dir, o.identity),
    '--work-delay-ms', String(o.workDelayMs), '--reconcile-log', o.reconcileLog,
    '--lease-name', o.leaseName, '--lease-duration-ms', String(o.lease.leaseDurationMs), '--renew-deadline-ms', String(o.lease.renewDeadlineMs), '--retry-period-ms', String(o.lease.retryPeriodMs),
  ];
}

/** A running demo process with its output collected. */
export class DemoProcess {
  readonly child: ChildProcess;
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<Exit>;
  exit: Exit | undefined;

  constructor(args: string[], env: NodeJS.ProcessEnv = {}) {
    if (!existsSync(DEMO_MAIN)) throw new Error(`${DEMO_MAIN} is missing: run \`npx tsc -b\` first`);
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    // The demo must never pick up a developer's cluster from the environment.
    if (!('KUBECONFIG' in env)) delete childEnv.KUBECONFIG;
    if (!('OTEL_EXPORTER_OTLP_ENDPOINT' in env)) delete childEnv.OTEL_EXPORTER_OTLP_ENDPOINT;
    this.child = spawn(process.execPath, [DEMO_MAIN, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    collectLines(this.child.stdout!, this.stdout);
    collectLines(this.child.stderr!, this.stderr);
    this.exited = exitOf(this.child).then((exit) => (this.exit = exit));
  }

  /** Resolves with the first stdout line matching `pattern` (also one printed earlier). */
  async line(pattern: RegExp, timeoutMs: number): Promise<string> {
    try {
      // An exit ends the wait early: the line will never come.
      await waitFor(() => this.exit !== undefined || this.stdout.some((l) => pattern.test(l)), { timeoutMs, what: `${pattern} in the demo's output` });
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${this.transcript()}`);
    }
    const found = this.stdout.find((l) => pattern.test(l));
    if (found === undefined) throw new Error(`the demo exited (${JSON.stringify(this.exit)}) before printing ${pattern}\n${this.transcript()}`);
    return found;
  }

  /** Waits for the exit, killing the process (SIGKILL) if it takes longer than `timeoutMs`. */
  waitForExit(timeoutMs: number): Promise<Exit> {
    return exitWithin(this.child, this.exited, timeoutMs);
  }

  /** Everything printed so far, for assertion messages. */
  transcript(): string {
    return `--- stdout\n${this.stdout.join('\n')}\n--- stderr\n${this.stderr.join('\n')}`;
  }

  /** Kills the process if it still runs (for `after()` hooks). */
  async dispose(): Promise<void> {
    if (this.exit) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
