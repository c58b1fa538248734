/**
 * A new operator project as a user gets it: the packages packed (`scripts/pack-all.mjs`), a project
 * scaffolded from the tarballs into a temporary directory (`kubeloop init --packages`), installed with npm
 * (our packages from the tarballs, the rest from npm's cache first), its own `npm test` run (the test kit:
 * happy path, delete through the finalizer, a seeded fault schedule), and the project's installed kubeloop
 * checking its generated files, and `kubeloop dev` reconciling a kubectl-created object. The errors a user meets first are one line with the right exit code.
 * Every command is bounded in time, runs in its own process group, and must leave no process behind.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DevSession, processesIn } from './support/dev-session.js';
import { runGroupCommand } from './support/group-command.js';
import { Kubectl } from './support/kubectl.js';
import { waitFor } from './support/wait-for.js';
import type { GroupCommandResult } from './support/group-command.js';
import { TempDirs } from './support/temp-dir.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('a project scaffolded by kubeloop init from the packed tarballs', { timeout: 900_000 }, () => {
  const temp = new TempDirs();
  let project: string;
  let work: string;

  /** Runs a command, asserting it left no process behind. */
  async function run(command: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<GroupCommandResult> {
    // Without NODE_TEST_CONTEXT, the project's `node --test` reports as it does for its user, not to our runner.
    const result = await runGroupCommand(command, args, { cwd, timeoutMs, env: { NO_COLOR: '1', npm_config_update_notifier: 'false' }, unset: ['NODE_TEST_CONTEXT'] });
    assert.equal(result.leftBehind, false, `${command} ${args.join(' ')} left a process behind`);
    return result;
  }

  /** The project's installed kubeloop (from the tarball), as `npx kubeloop` runs it. */
  const kubeloop = (args: readonly string[], cwd = project): Promise<GroupCommandResult> => run(join(project, 'node_modules/.bin/kubeloop'), args, cwd, 60_000);

  before(async () => {
    work = await temp.make('cli-scaffold');
    const packages = join(work, 'packages');
    const packed = await run(process.execPath, [join(root, 'scripts/pack-all.mjs'), packages], root, 600_000);
    assert.equal(packed.code, 0, packed.stderr);
    const init = await run(process.execPath, [join(root, 'packages/cli/bin/kubeloop.js'), 'init', 'my-operator', '--packages', packages], work, 60_000);
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /^ {2}npm install$/m);
    project = join(work, 'my-operator');
    const install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], project, 600_000);
    assert.equal(install.code, 0, `${install.stdout}${install.stderr}`);
  });

  after(() => temp.removeAll());

  test('its own npm test passes: the happy path, the delete through the finalizer, the seeded fault schedule', async () => {
    const result = await run('npm', ['test'], project, 300_000);
    assert.equal(result.code, 0, `${result.stdout}${result.stderr}`);
    // The TAP reporter (Node 20 off a terminal) or the spec reporter (Node 22 and later).
    assert.match(result.stdout, /^(#|ℹ) pass 3$/m);
    assert.match(result.stdout, /^(#|ℹ) fail 0$/m);
    assert.match(result.stdout, /it converges through a seeded fault schedule with a server restart/);
  });

  test('kubeloop generate --check passes on the fresh project and fails, naming the files, once the schema changed', async () => {
    const fresh = await kubeloop(['generate', '--check']);
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.match(fresh.stdout, /^3 generated files are up to date$/m);
    const schemaPath = join(project, 'kinds/website.yaml');
    const schema = await readFile(schemaPath, 'utf8');
    await writeFile(schemaPath, schema.replace('maximum: 50', 'maximum: 20'));
    try {
      const stale = await kubeloop(['generate', '--check']);
      assert.equal(stale.code, 1);
      assert.equal(stale.stderr, 'kubeloop generate: 3 generated files are not up to date: crds/websites.example.com.yaml (stale), src/kinds/website.ts (stale), deploy/operator.yaml (stale); run `npx kubeloop generate`\n');
    } finally {
      await writeFile(schemaPath, schema);
    }
  });

  test('kubeloop dev runs it on the embedded API server: a Website created with kubectl becomes Ready; Ctrl-C leaves no process', async () => {
    const dev = new DevSession({ kubeloop: join(project, 'node_modules/kubeloop/bin/kubeloop.js'), cwd: project });
    try {
      const [, kubeconfig] = await dev.waitForOutput(/^ {2}export KUBECONFIG=(\S+)$/m, 120_000);
      await dev.waitForOutput(/^operator ready in \d+ ms \(compiled \d+ files in \d+ ms with typescript\)$/m, 120_000);
      const kubectl = await Kubectl.create(await readFile(kubeconfig!, 'utf8'), await temp.make('cli-scaffold-kubectl'));
      await kubectl.ok(['apply', '-f', '-'], { input: 'apiVersion: example.com/v1alpha1\nkind: Website\nmetadata: {name: hello, namespace: default}\nspec: {image: nginx:1.27, replicas: 1}\n' });
      await waitFor(
        async () => (await kubectl.json<{ status?: { conditions?: { type: string; status: string }[] } }>(['get', 'website', 'hello'])).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        { timeoutMs: 60_000, what: 'the Website to be Ready' },
      );
      assert.deepEqual(await dev.interrupt(30_000), { code: 0, signal: null }, dev.stderr);
      assert.deepEqual(processesIn(project), [], 'no process of the project is left');
    } finally {
      dev.kill();
    }
  });

  test('a bad flag, an existing directory and a malformed CRD: one line each, exit 2, 1 and 1, no stack trace', async () => {
    const badFlag = await kubeloop(['init', 'other', '--kindd', 'Shop'], work);
    assert.equal(badFlag.code, 2);
    assert.equal(badFlag.stderr, "kubeloop init: Unknown option '--kindd'\nRun 'kubeloop init --help' for usage.\n");
    const existing = await kubeloop(['init', 'my-operator'], work);
    assert.equal(existing.code, 1);
    assert.match(existing.stderr, /^kubeloop init: my-operator is not empty \(\d+ entries\); choose a new directory, or pass --force to write into it\n$/);
    const broken = join(project, 'crds/broken.yaml');
    await writeFile(broken, 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {group: example.com, names: [}\n');
    const malformed = await kubeloop(['generate']);
    assert.equal(malformed.code, 1);
    assert.match(malformed.stderr, /^kubeloop generate: crds\/broken\.yaml: not valid YAML or JSON: [^\n]+ at line 3, column 36\n$/);
    for (const result of [badFlag, existing, malformed]) assert.doesNotMatch(result.stderr, /\n\s+at /);
    await run('rm', [broken], project, 10_000);
  });
});
