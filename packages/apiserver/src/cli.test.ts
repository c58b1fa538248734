import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
  async function startCli(args: (dir: string) => string[], env: NodeJS.ProcessEnv = process.env): Promise<{ dir: string; stdout: string; child: ChildProcess; exited: Promise<number | null> }> {
    const dir = await mkdtemp(join(tmpdir(), 'kubeloop-cli-'));
    dirs.push(dir);
    const child = spawn(process.execPath, [...nodeArgs, cliPath, '--port', '0', '--kubeconfig-out', join(dir, 'kc.yaml'), ...args(dir)], { stdio: ['ignore', 'pipe', 'pipe'], env });
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

  test('--simulate runs the cluster around an operator: Nodes, and a Deployment that gets running Pods in real time', async () => {
    const { stdout, child, exited } = await startCli(() => ['--simulate', '--nodes', '2']);
    const url = /listening on (\S+)/.exec(stdout)?.[1] ?? '';
    // The simulated kubelet registers its Nodes just after the server starts.
    const nodeNames = async (): Promise<string[]> => {
      const listed = await call(url, 'GET', '/api/v1/nodes');
      return (listed.body.items as { metadata: { name: string } }[]).map((n) => n.metadata.name);
    };
    await waitFor(async () => (await nodeNames()).length === 2, { message: 'two simulated Nodes' });
    assert.deepEqual(await nodeNames(), ['node-1', 'node-2']);
    const labels = { app: 'cli' };
    const created = await call(url, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'cli' },
      spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    assert.equal(created.status, 201, created.text);
    // Real time: the Pod starts after the default 1 s.
    await waitFor(async () => (await call(url, 'GET', '/apis/apps/v1/namespaces/default/deployments/cli')).body.status?.availableReplicas === 1, {
      timeoutMs: 15_000,
      message: 'the Deployment becomes available',
    });
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });

  test('--nodes without --simulate, or not a whole number, is a usage error (exit 2)', async () => {
    for (const args of [['--nodes', '2'], ['--simulate', '--nodes', 'two']]) {
      const child = spawn(process.execPath, [...nodeArgs, cliPath, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      assert.equal(code, 2, stderr);
      assert.match(stderr, /--nodes/);
    }
  });

  test('a data directory that cannot be created is one line on stderr, no stack, exit 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeloop-cli-datadir-'));
    dirs.push(dir);
    await writeFile(join(dir, 'a-file'), '');
    const dataDir = join(dir, 'a-file', 'data');
    const child = spawn(process.execPath, [...nodeArgs, cliPath, '--port', '0', '--kubeconfig-out', join(dir, 'kc.yaml'), '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(code, 1, stderr);
    assert.equal(stderr, `kubeloop-apiserver: cannot lock data directory ${dataDir}: not a directory (ENOTDIR)\n`);
  });

  test('--token-file and KUBELOOP_APISERVER_TOKEN keep the token out of ps; --help says so', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeloop-cli-token-'));
    dirs.push(dir);
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'from-file\n', { mode: 0o600 });
    for (const [args, env, token] of [
      [['--token-file', tokenFile], process.env, 'from-file'],
      [[], { ...process.env, KUBELOOP_APISERVER_TOKEN: 'from-env' }, 'from-env'],
    ] as const) {
      const { stdout, child, exited } = await startCli(() => [...args], env);
      const url = /listening on (\S+)/.exec(stdout)?.[1] ?? '';
      assert.equal((await fetch(`${url}/api/v1/namespaces`)).status, 401, 'no token: refused');
      assert.equal((await fetch(`${url}/api/v1/namespaces`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
      assert.ok(!(child.spawnargs.join(' ').includes(token)), 'the token is not on the command line');
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    }
    const help = spawn(process.execPath, [...nodeArgs, cliPath, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    help.stdout?.setEncoding('utf8').on('data', (d: string) => (text += d));
    await new Promise((resolve) => help.on('exit', resolve));
    assert.match(text, /--token-file FILE/);
    assert.match(text, /KUBELOOP_APISERVER_TOKEN/);
  });
});
