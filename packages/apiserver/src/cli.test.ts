import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'node:http';
import { call, waitFor } from './testing/test-client.js';

// Runs from `dist/cli.test.js` (cli.js beside it) or from sources under tsx (cli.ts beside it).
const cliPath = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './cli.ts' : './cli.js', import.meta.url));
const nodeArgs = process.execArgv.filter((a) => !a.startsWith('--test'));

describe('kubeloop-apiserver CLI', () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  /** Starts the CLI with `args` (after `--port 0 --kubeconfig-out <dir>/kc.yaml`) and waits for its first line. */
  async function startCli(args: (dir: string) => string[]): Promise<{ dir: string; stdout: string; child: ChildProcess; exited: Promise<number | null> }> {
    const dir = await mkdtemp(join(tmpdir(), 'kubeloop-cli-'));
    dirs.push(dir);
    const child = spawn(process.execPath, [...nodeArgs, cliPath, '--port', '0', '--kubeconfig-out', join(dir, 'kc.yaml'), ...args(dir)], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(() => stdout.includes('export KUBECONFIG='), { timeoutMs: 15_000, message: 'listening and kubeconfig lines' });
    return { dir, stdout, child, exited };
  }

  test('prints the listening line, then where the kubeconfig went (absolute path and the export line), serves, and exits 0 on SIGTERM', async () => {
    const { dir, stdout, child, exited } = await startCli((d) => ['--data-dir', join(d, 'data')]);
    const kubeconfigPath = join(dir, 'kc.yaml');
    const match = /^kubeloop-apiserver listening on (http:\/\/127\.0\.0\.1:\d+)\nkubeconfig written to (\/\S+)\n {2}export KUBECONFIG=\2\n$/.exec(stdout);
    assert.ok(match, `unexpected output: ${JSON.stringify(stdout)}`);
    const url = match[1]!;
    assert.equal(match[2], kubeconfigPath);
    const kubeconfig = await readFile(kubeconfigPath, 'utf8');
    assert.match(kubeconfig, new RegExp(`server: ${url}`));
    assert.match(kubeconfig, /insecure-skip-tls-verify: true/);
    assert.match(kubeconfig, /token: /);
    assert.equal((await call(url, 'GET', '/api/v1/namespaces/default')).status, 200);
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });

  test('--allowed-host adds a host name requests may be addressed to; others are 403', async () => {
    const { stdout, child, exited } = await startCli(() => ['--allowed-host', 'dev.example']);
    const url = new URL(/listening on (\S+)/.exec(stdout)?.[1] ?? '');
    const statusFor = (host: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = request({ host: url.hostname, port: url.port, path: '/api/v1/namespaces', headers: { host: `${host}:${url.port}` }, setHost: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    assert.equal(await statusFor('dev.example'), 200);
    assert.equal(await statusFor('other.example'), 403);
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});
