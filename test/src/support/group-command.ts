/**
 * Runs a command (npm, a packed CLI) in its own process group, bounded in time: at the deadline the whole
 * group is killed. Once the command exited, `leftBehind` says whether any process of its group still runs
 * (a test's "no process left behind"), and the group is killed anyway, so nothing outlives the test.
 */
import { spawn } from 'node:child_process';

export interface GroupCommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True when some process of the command's group was still running after the command exited. */
  leftBehind: boolean;
}

export interface GroupCommandOptions {
  cwd: string;
  /** The whole group is killed after this long and the call rejects. */
  timeoutMs: number;
  /** Added to the test's environment. Default: nothing. */
  env?: Record<string, string> | undefined;
  /** Removed from the test's environment. Default: nothing. */
  unset?: readonly string[] | undefined;
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export function runGroupCommand(command: string, args: readonly string[], options: GroupCommandOptions): Promise<GroupCommandResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    for (const name of options.unset ?? []) delete env[name];
    const child = spawn(command, args, { cwd: options.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) killGroup(child.pid);
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${options.timeoutMs} ms\n${stdout}${stderr}`));
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const pid = child.pid!;
      const leftBehind = groupAlive(pid);
      killGroup(pid);
      resolve({ code, signal, stdout, stderr, leftBehind });
    });
  });
}
