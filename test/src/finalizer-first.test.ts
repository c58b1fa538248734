/**
 * The order of the finalizer and the user's first reconcile, under a kill: an operator process is
 * killed (SIGKILL) after its reconcile made a side effect outside Kubernetes (a record file) and
 * before that reconcile returned; the object is deleted while no operator runs; a new operator process
 * starts. With `finalizerFirst`, our finalizer was on the object before the side effect, so the deletion
 * waits for the new process, which runs the cleanup exactly once. In the default (upstream) order the
 * finalizer was never written: the object is gone at once, the new process never hears of it, and the
 * record leaks. Both outcomes are asserted: the second is the documented risk of the default.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, ConfigMapKind, isNotFound } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { exitOf, exitWithin } from './support/child-exit.js';
import type { Exit } from './support/child-exit.js';
import { KubeconfigServer } from './support/kubeconfig-server.js';
import { TempDirs } from './support/temp-dir.js';
import { waitFor } from './support/wait-for.js';

const OPERATOR_MAIN = fileURLToPath(new URL('./support/finalizer-order-operator.js', import.meta.url));
const FINALIZER = 'kubeloop.dev/record-cleanup';

/** One operator process, its output collected line by line. */
class OperatorProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcess;

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, [OPERATOR_MAIN], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let partial = '';
    const collect = (chunk: Buffer): void => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() ?? '';
      this.lines.push(...parts);
    };
    this.child.stdout!.on('data', collect);
    this.child.stderr!.on('data', collect);
    this.exited = exitOf(this.child);
  }

  /** Waits for `line` in the output; fails with the output if the process exits first or after 20 s. */
  async awaitLine(line: string): Promise<void> {
    let exit: Exit | undefined;
    void this.exited.then((e) => (exit = e));
    await waitFor(
      () => {
        if (exit !== undefined) throw new Error(`the operator exited (${JSON.stringify(exit)}) before printing ${JSON.stringify(line)}:\n${this.lines.join('\n')}`);
        return this.lines.includes(line);
      },
      { timeoutMs: 20_000, what: `${JSON.stringify(line)} from the operator; its output so far:\n${this.lines.join('\n')}` },
    );
  }

  /** SIGKILL, as a node or a container runtime kills: no handler runs. */
  async kill(): Promise<Exit> {
    this.child.kill('SIGKILL');
    return this.exited;
  }

  /** SIGTERM, and the exit (SIGKILL past 10 s). */
  stop(): Promise<Exit> {
    this.child.kill('SIGTERM');
    return exitWithin(this.child, this.exited, 10_000);
  }
}

describe('finalizer order under a kill between the side effect and the finalizer write', { timeout: 90_000 }, () => {
  const dirs = new TempDirs();
  let api: KubeconfigServer;
  let client: Client<ConfigMap>;
  let kubeconfig: string;
  const processes: OperatorProcess[] = [];

  before(async () => {
    api = await KubeconfigServer.start();
    client = new Client(ConfigMapKind, api.transport);
    kubeconfig = join(await dirs.make('finalizer-first-kubeconfig'), 'kubeconfig');
    await writeFile(kubeconfig, api.server.kubeconfig);
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await api.stop();
    await dirs.removeAll();
  });

  const start = (env: Record<string, string>): OperatorProcess => {
    const p = new OperatorProcess({ KUBECONFIG: kubeconfig, ...env });
    processes.push(p);
    return p;
  };

  const gone = async (namespace: string, name: string): Promise<boolean> =>
    client.get({ namespace, name }).then(
      () => false,
      (err: unknown) => {
        if (isNotFound(err)) return true;
        throw err;
      },
    );

  const cleanups = async (dir: string): Promise<string[]> => {
    const path = join(dir, 'cleanups.log');
    return existsSync(path) ? (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '') : [];
  };

  /** Create, side effect, SIGKILL, delete; returns the record directory and the object's finalizers at the kill. */
  async function killAfterSideEffectThenDelete(namespace: string, finalizerFirst: boolean): Promise<{ dir: string; finalizersAtKill: string[] }> {
    await api.createNamespace(namespace);
    const dir = await dirs.make(`records-${namespace}`);
    const env = { NAMESPACE: namespace, RECORD_DIR: dir, FINALIZER_FIRST: finalizerFirst ? '1' : '0' };
    const first = start({ ...env, BLOCK_AFTER_SIDE_EFFECT: '1' });
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'site', namespace }, data: { page: 'home' } });
    await first.awaitLine('side effect site');
    assert.ok(existsSync(join(dir, 'site.record')), 'the side effect happened');
    const exit = await first.kill();
    assert.equal(exit.signal, 'SIGKILL');
    const finalizersAtKill = (await client.get({ namespace, name: 'site' })).metadata.finalizers ?? [];
    await client.delete({ namespace, name: 'site' });
    return { dir, finalizersAtKill };
  }

  test('finalizerFirst: the finalizer was on before the side effect; the deletion waits for the restarted operator, which cleans up exactly once', async () => {
    const namespace = 'finalizer-first';
    const { dir, finalizersAtKill } = await killAfterSideEffectThenDelete(namespace, true);
    assert.deepEqual(finalizersAtKill, [FINALIZER], 'the finalizer was written before the user reconcile ran');
    const deleting = await client.get({ namespace, name: 'site' });
    assert.ok(deleting.metadata.deletionTimestamp, 'our finalizer holds the deleted object for the cleanup');

    const second = start({ NAMESPACE: namespace, RECORD_DIR: dir, FINALIZER_FIRST: '1', BLOCK_AFTER_SIDE_EFFECT: '0' });
    await second.awaitLine('cleanup site');
    await waitFor(() => gone(namespace, 'site'), { timeoutMs: 20_000, what: 'the object to go once our finalizer is removed' });
    await second.awaitLine('idle');
    const exit = await second.stop();
    assert.deepEqual(exit, { code: 0, signal: null }, second.lines.join('\n'));
    assert.deepEqual(await cleanups(dir), ['site'], 'the cleanup ran exactly once');
    assert.equal(existsSync(join(dir, 'site.record')), false, 'nothing leaked');
  });

  test('default (upstream order): no finalizer was written before the kill; the deleted object is gone at once and the record leaks', async () => {
    const namespace = 'finalizer-after';
    const { dir, finalizersAtKill } = await killAfterSideEffectThenDelete(namespace, false);
    assert.deepEqual(finalizersAtKill, [], 'the finalizer comes only after a successful reconcile, which the kill prevented');
    assert.equal(await gone(namespace, 'site'), true, 'nothing held the deleted object');

    const second = start({ NAMESPACE: namespace, RECORD_DIR: dir, FINALIZER_FIRST: '0', BLOCK_AFTER_SIDE_EFFECT: '0' });
    await second.awaitLine('idle');
    const exit = await second.stop();
    assert.deepEqual(exit, { code: 0, signal: null }, second.lines.join('\n'));
    assert.deepEqual(await cleanups(dir), [], 'the restarted operator never heard of the object: no cleanup');
    assert.equal(existsSync(join(dir, 'site.record')), true, 'the side effect leaked: the risk of the default order');
  });
});
