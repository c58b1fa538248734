/**
 * The whole pipeline of the sharded fleet test on fixed shards (each replica process given
 * `equalShardRange(i, n)` for its life), against the embedded API server in the test process:
 * three replicas on three ranges under steady writes keep every invariant; two replicas given the
 * same range break them, and the checker says so (the check is not one that cannot fail).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, ConfigMapKind } from '@kubeloop/resource';
import { KubeconfigServer } from '../support/kubeconfig-server.js';
import { TempDirs } from '../support/temp-dir.js';
import { quiesce, summary } from './fleet-check.js';
import { ReplicaFleet } from './replica-fleet.js';
import { SteadyWriter } from './steady-writer.js';

const NAMESPACE = 'sharded';
/** Changes are handled within this bound on a loaded 2-core machine (no owner ever dies here). */
const HANDLING_BOUND_MS = 10_000;

describe('replica processes on fixed shards, steady writes, the invariants checked on their records', () => {
  const temp = new TempDirs();
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await temp.removeAll();
  });

  async function setUp(prefix: string): Promise<{ fleet: ReplicaFleet; writer: SteadyWriter }> {
    const api = await KubeconfigServer.start();
    cleanups.push(() => api.stop());
    await api.createNamespace(NAMESPACE);
    const dir = await temp.make(prefix);
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, api.server.kubeconfig);
    const fleet = new ReplicaFleet({ dir, kubeconfig, prefix, program: { namespace: NAMESPACE, workMs: 20 } });
    cleanups.push(() => fleet.dispose());
    const writer = new SteadyWriter({ client: new Client(ConfigMapKind, api.newTransport()), namespace: NAMESPACE, count: 300, ratePerSecond: 40 });
    return { fleet, writer };
  }

  async function writeFor(writer: SteadyWriter, ms: number): Promise<void> {
    const stop = new AbortController();
    const running = writer.run(stop.signal);
    // A scenario's length, not a wait for a condition: the writer changes objects at a fixed rate meanwhile.
    await new Promise((resolve) => setTimeout(resolve, ms));
    stop.abort();
    await running;
  }

  test('three replicas on three ranges: no overlap, every last state handled, one cleanup per delete', { timeout: 90_000 }, async (t) => {
    const { fleet, writer } = await setUp('static-ok');
    await fleet.scaleTo(3, (index) => ({ staticShard: { index, count: 3 } }));
    await writer.populate();
    await writeFor(writer, 4000);
    const report = await quiesce(fleet, writer, HANDLING_BOUND_MS, 45_000);
    await fleet.stopAll();
    t.diagnostic(`${writer.writes} writes; ${summary(report)}`);
    assert.deepEqual(fleet.unexpectedExits(), []);
    assert.deepEqual(report.violations, [], summary(report));
    assert.ok(writer.writes > 400, `the writer made ${writer.writes} writes`);
    assert.ok(report.calls > 600, summary(report));
  });

  test('two replicas given the same range: the checker finds their overlapping calls and double cleanups', { timeout: 90_000 }, async (t) => {
    const { fleet, writer } = await setUp('static-twice');
    await fleet.scaleTo(3, (index) => ({ staticShard: { index: Math.min(index, 1), count: 2 } }));
    await writer.populate();
    await writeFor(writer, 4000);
    const report = await quiesce(fleet, writer, HANDLING_BOUND_MS, 45_000);
    await fleet.stopAll();
    t.diagnostic(`${writer.writes} writes; ${summary(report)}`);
    assert.deepEqual(fleet.unexpectedExits(), []);
    assert.ok(report.counts.overlap > 0, summary(report));
    assert.ok(report.counts.cleanup > 0, summary(report));
  });
});
