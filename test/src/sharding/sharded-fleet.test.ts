/**
 * Issue 26's multi-process test: replicas of a sharded operator (sharded-operator-process.ts, each
 * its own process, `runOperator({ sharding })`) against the embedded API server in the test
 * process, 1,000 ConfigMaps under steady writes (updates, deletes held by the operator's finalizer,
 * creates). The fleet scales 1 -> 3 -> 5 -> 2, one replica is killed with SIGKILL, one is paused with
 * SIGSTOP for longer than its lease and resumed; after each step the ring's slot table is waited for
 * (the assignment of the live members). Then the fleet is left to quiesce and the invariants
 * (invariants.ts) are checked on every handler call recorded: no object handled by two replicas at
 * once, every object's last state handled, one cleanup per real delete and none for a moved object,
 * every change handled within the lease duration plus the time to take a slot over. Once with the
 * server's sharded list and watch, once without (the replicas filter on the client).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, ConfigMapKind, LeaseKind } from '@kubeloop/resource';
import { KubeconfigServer } from '../support/kubeconfig-server.js';
import { TempDirs } from '../support/temp-dir.js';
import { checkFleet, quiesce, summary } from './fleet-check.js';
import { ReplicaFleet } from './replica-fleet.js';
import type { Replica } from './replica-fleet.js';
import { waitForOwners } from './ring-table.js';
import { SteadyWriter } from './steady-writer.js';
import type { ShardedOperatorRing } from './sharded-operator-process.js';

const NAMESPACE = 'fleet';
const RING: ShardedOperatorRing = { name: 'fleet', slots: 16, leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250, handOverTimeoutMs: 1000 };
/**
 * Every change is handled within: the lease of a dead owner (2 s) and the rounds that notice it
 * (retry period, with jitter), the list of the slots taken over and their calls queued behind the
 * other adds of the take-over (~500 objects at 10 calls at a time, 20 ms each, plus the finalizer
 * patches), with room for a loaded 2-core machine.
 */
const HANDLING_BOUND_MS = 10_000;
/** A hand-over (the slot table reaching the assignment of the live members) takes at most this long. */
const HANDOVER_TIMEOUT_MS = 20_000;

for (const shardedListAndWatch of [true, false]) {
  describe(`a sharded operator fleet, server ${shardedListAndWatch ? 'with' : 'without'} sharded list and watch`, () => {
    const temp = new TempDirs();
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
      await temp.removeAll();
    });

    test('scaled 1 -> 3 -> 5 -> 2, one replica killed, one paused longer than its lease: no object handled twice at once, every last state handled, one cleanup per delete', { timeout: 115_000 }, async (t) => {
      const testStart = Date.now();
      const api = await KubeconfigServer.start({ shardedListAndWatch });
      cleanups.push(() => api.stop());
      await api.createNamespace(NAMESPACE);
      const prefix = shardedListAndWatch ? 'server' : 'client';
      const dir = await temp.make(`fleet-${prefix}`);
      const kubeconfig = join(dir, 'kubeconfig');
      await writeFile(kubeconfig, api.server.kubeconfig);
      const fleet = new ReplicaFleet({ dir, kubeconfig, prefix, program: { namespace: NAMESPACE, workMs: 20, sharding: RING } });
      cleanups.push(() => fleet.dispose());
      const leases = new Client(LeaseKind, api.newTransport());
      const writer = new SteadyWriter({ client: new Client(ConfigMapKind, api.newTransport()), namespace: NAMESPACE, count: 1000, ratePerSecond: 40 });
      const steps: string[] = [];
      const balanced = async (what: string, owners: readonly Replica[]): Promise<void> => {
        const ms = await waitForOwners(leases, { namespace: NAMESPACE, ring: RING.name, slots: RING.slots, owners: owners.map((r) => r.identity), timeoutMs: HANDOVER_TIMEOUT_MS }).catch((error: unknown) => {
          throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}\n${fleet.live().map((r) => r.process.transcript()).join('\n')}`);
        });
        steps.push(`${what} at ${Date.now() - ms}: slot table settled in ${ms} ms`);
      };

      await fleet.scaleTo(1);
      await balanced('1 replica', fleet.live());
      await writer.populate();
      // The population is a burst; the steady writes start once it is handled.
      await quiesce(fleet, writer, HANDLING_BOUND_MS, 30_000);
      const stopWriting = new AbortController();
      const writing = writer.run(stopWriting.signal);
      try {
        for (const count of [3, 5, 2]) {
          await fleet.scaleTo(count);
          await balanced(`scaled to ${count}`, fleet.live());
        }

        const [victim, survivor] = fleet.live();
        await fleet.kill(victim!);
        await balanced('one of 2 killed (its member Lease expires)', [survivor!]);
        await fleet.scaleTo(2);
        await balanced('back to 2', fleet.live());

        const paused = fleet.live()[0]!;
        const awake = fleet.live().filter((r) => r !== paused);
        fleet.pause(paused);
        await balanced('one of 2 paused (SIGSTOP)', awake);
        // Paused well past its lease: its slots were taken over above, and it must not come back handling them.
        // Real time on purpose: the replicas are other processes on the wall clock, and the freeze must outlast their lease.
        await new Promise((resolve) => setTimeout(resolve, RING.leaseDurationMs));
        fleet.resume(paused);
        await balanced('the paused replica resumed (SIGCONT)', fleet.live());
      } catch (error) {
        // What the records say so far tells what went wrong in the fleet.
        const report = await checkFleet(fleet, writer, HANDLING_BOUND_MS);
        throw new Error(`${error instanceof Error ? error.message : String(error)}\nafter: ${steps.join('; ')}\nrecords so far: ${summary(report)}`);
      } finally {
        stopWriting.abort();
        await writing;
      }

      const report = await quiesce(fleet, writer, HANDLING_BOUND_MS, 30_000);
      await fleet.stopAll();
      t.diagnostic(`${steps.join('; ')}; ${writer.writes} writes; ${summary(report)}; ${Date.now() - testStart} ms in all`);
      assert.deepEqual(fleet.unexpectedExits(), []);
      assert.deepEqual(report.violations, [], summary(report));
      // The handler checks ctx.stillOwned() before its side effect: no call frozen in flight writes on waking.
      assert.equal(report.frozenInFlight, 0, summary(report));
      assert.ok(report.calls > 2000, summary(report));
    });
  });
}
