/**
 * Debian's Chromium, headless, as a test runs it: a private profile, no sandbox (tests run as root in
 * CI containers), in a process group of its own killed at the deadline and after it exits (Chromium
 * leaves helper processes behind otherwise).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** The Chromium executable; throws (never skips) when there is none: `.ci/run` installs it. */
export function resolveChromium(): string {
  for (const candidate of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error("Chromium was not found: install Debian's chromium package (`apt-get install chromium`), as .ci/run does");
}

/** Runs headless Chromium with `args` (plus a profile in `profileDir`); resolves with its stdout once it exited. */
export function runHeadlessChromium(args: readonly string[], options: { profileDir: string; timeoutMs: number }): Promise<string> {
  const chromium = resolveChromium();
  const child = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${options.profileDir}`, '--hide-scrollbars', ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const killGroup = (): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup();
      reject(new Error(`chromium timed out after ${options.timeoutMs} ms\nstderr: ${stderr.slice(-2_000)}`));
    }, options.timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      killGroup();
      if (code === 0) resolve(stdout);
      else reject(new Error(`chromium exited with ${code}\nstderr: ${stderr.slice(-2_000)}`));
    });
  });
}
