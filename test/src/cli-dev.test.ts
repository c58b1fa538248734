/**
 * `kubeloop dev` on a project scaffolded by `kubeloop init --local` (this clone's packages: the project's
 * node_modules is the repository's): it prints the KUBECONFIG line and the URLs, the operator reconciles an
 * object created with the real kubectl to Ready on the simulated cluster, the status page shows it, a saved
 * edit restarts the operator, and Ctrl-C stops everything, leaving no process behind.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DevSession, processesIn } from './support/dev-session.js';
import { runGroupCommand } from './support/group-command.js';
import { Kubectl } from './support/kubectl.js';
import { TempDirs } from './support/temp-dir.js';
import { waitFor } from './support/wait-for.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const kubeloop = join(root, 'packages/cli/bin/kubeloop.js');

const WEBSITE = `apiVersion: example.com/v1alpha1
kind: Website
metadata: {name: hello, namespace: default}
spec: {image: nginx:1.27, replicas: 2}
`;

describe('kubeloop dev on a freshly scaffolded project', { timeout: 180_000 }, () => {
  const temp = new TempDirs();
  let project: string;
  let dev: DevSession | undefined;

  before(async () => {
    const work = await temp.make('cli-dev');
    const init = await runGroupCommand(process.execPath, [kubeloop, 'init', 'my-operator', '--local'], { cwd: work, timeoutMs: 60_000, env: { NO_COLOR: '1' } });
    assert.equal(init.code, 0, init.stderr);
    project = join(work, 'my-operator');
    await symlink(join(root, 'node_modules'), join(project, 'node_modules'));
  });

  after(async () => {
    dev?.kill();
    await temp.removeAll();
  });

  test('prints where things are, reconciles a kubectl-created object to Ready, restarts on an edit, and stops on Ctrl-C leaving nothing behind', async () => {
    dev = new DevSession({ kubeloop, cwd: project });
    const [, kubeconfig] = await dev.waitForOutput(/^ {2}export KUBECONFIG=(\S+)$/m, 60_000);
    const [, statusUrl] = await dev.waitForOutput(/^ {2}status: +(http:\/\/127\.0\.0\.1:\d+\/status)$/m, 5_000);
    assert.match(dev.stdout, /^ {2}metrics: http:\/\/127\.0\.0\.1:\d+\/metrics$/m);
    assert.match(dev.stdout, /^kubeloop dev: embedded API server http:\/\/127\.0\.0\.1:\d+ \(data in \.kubeloop\/data\/\), 1 CRD installed$/m);
    await dev.waitForOutput(/^operator ready in \d+ ms \(compiled \d+ files in \d+ ms with (esbuild|typescript)\)$/m, 60_000);
    assert.equal(kubeconfig, join(project, '.kubeloop/kubeconfig'));

    const kubectl = await Kubectl.create(await readFile(kubeconfig, 'utf8'), await temp.make('cli-dev-kubectl'));
    await kubectl.ok(['apply', '-f', '-'], { input: WEBSITE });
    const ready = await waitFor(
      async () => {
        const site = await kubectl.json<{ status?: { conditions?: { type: string; status: string; message?: string }[] } }>(['get', 'website', 'hello']);
        return site.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
      },
      { timeoutMs: 60_000, what: 'the Website to be Ready' },
    );
    assert.equal(ready.message, '2 of 2 replicas ready');
    const page = await (await fetch(statusUrl!)).text();
    assert.match(page, /<tr class="object" data-object="Website\.example\.com\/default\/hello">/, 'the status page lists the object');
    await dev.waitForOutput(/objects: Website 1, Deployment 1 · handler calls \d+ · errors 0/, 10_000);

    await appendFile(join(project, 'src/operator.ts'), '\n// an edit\n');
    const [, afterChange] = await dev.waitForOutput(/^operator restarted, ready (\d+) ms after the change/m, 30_000);
    assert.ok(Number(afterChange) < 30_000);

    const exit = await dev.interrupt(30_000);
    assert.deepEqual(exit, { code: 0, signal: null }, dev.stderr);
    assert.match(dev.stdout, /^received SIGINT: stopping the operator and the API server \(again to force\)\nstopped\n$/m);
    assert.deepEqual(processesIn(project), [], 'no process of the project is left');
  });
});
