/**
 * Two operator replicas in one ring on the embedded API server (real HTTP, short lease timings):
 * each object is handled by the replica that owns its slot, by one replica at a time; when a
 * replica leaves, the other takes its objects over, and the leaving one releases them (no delete).
 * Both server modes: with the KEP-5866 feature (server-side filtering) and without it (client side).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConfigMapKind, HttpTransport, LeaseKind } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { startApiServer } from '@kubeloop/apiserver';
import { waitFor } from '@kubeloop/apiserver/testing';
import { InformerController } from '../controller/informer-controller.js';
import { Operator } from '../controller/operator.js';
import type { HandlerContext } from '../handlers/resource-watcher.js';
import { runOperator } from '../runtime/graceful-shutdown.js';
import { ShardedInformer } from './sharded-informer.js';
import { slotOf } from './shard-ring.js';
import { assignSlots } from './slot-assignment.js';

interface Call {
  readonly replica: string;
  readonly name: string;
  readonly kind: 'add' | 'update' | 'delete' | 'release';
  readonly start: number;
  end: number;
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };


describe('sharded operators', () => {
  const stops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  for (const shardedListAndWatch of [true, false]) {
    test(`each object is handled by its slot's replica only, and moves on when a replica leaves (server ${shardedListAndWatch ? 'with' : 'without'} sharded list and watch)`, async () => {
      const server = await startApiServer({ shardedListAndWatch });
      const transport = new HttpTransport({ server: server.url });
      stops.push(async () => {
        transport.close();
        await server.stop();
      });
      const configMaps = new Client(ConfigMapKind, transport);
      const names = Array.from({ length: 40 }, (_, i) => `cm-${i}`);
      for (const name of names) await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { app: 'sharded' } }, data: { v: '1' } });

      const calls: Call[] = [];
      const record = (replica: string, kind: Call['kind']) => async (_ctx: HandlerContext, object: KubeObject): Promise<void> => {
        const call: Call = { replica, name: object.metadata.name, kind, start: performance.now(), end: 0 };
        calls.push(call);
        // The handler's own work (an I/O-bound call takes a while): the overlap check needs calls with a duration.
        await new Promise((resolve) => setTimeout(resolve, 5));
        call.end = performance.now();
      };
      const replicas = new Map<string, { stop: AbortController; done: Promise<unknown> }>();
      const startReplica = (identity: string): void => {
        const informer = new ShardedInformer(ConfigMapKind, configMaps, 'default', { logger: quiet, errorHandler: () => undefined });
        const controller = new InformerController({ logger: quiet });
        controller.addInformer(informer);
        controller.addWatcher(
          { add: record(identity, 'add'), update: (ctx, _old, object) => record(identity, 'update')(ctx, object), delete: record(identity, 'delete'), release: record(identity, 'release') },
          ConfigMapKind,
        );
        const operator = new Operator();
        operator.addController(controller);
        const stop = new AbortController();
        const done = runOperator({
          operator,
          signal: stop.signal,
          logger: quiet,
          sharding: { name: 'cms', namespace: 'default', identity, client: new Client(LeaseKind, transport), slots: 8, leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 100, handOverTimeoutMs: 1_000 },
        });
        replicas.set(identity, { stop, done });
      };

      startReplica('a');
      startReplica('b');
      const objects = await configMaps.list('default', { labelSelector: 'app=sharded' });
      const slotOfName = new Map(objects.items.map((o) => [o.metadata.name, slotOf(o.metadata.uid ?? '', 8)]));
      const table = assignSlots('cms', 8, ['a', 'b']);
      const ownerOf = (name: string): string => table[slotOfName.get(name) ?? -1] ?? '?';
      const handledBy = (replica: string): Set<string> => new Set(calls.filter((c) => c.replica === replica && c.kind === 'add').map((c) => c.name));
      await waitFor(() => names.every((n) => handledBy(ownerOf(n)).has(n)), { what: 'every object added in its owner', timeoutMs: 15_000 });
      // Until the table settles a lone early replica may have run some slots first (and released them since).
      const firstReleased = calls.filter((c) => c.kind === 'release').length;

      // An update reaches the owner only.
      await configMaps.update({ ...(objects.items.find((o) => o.metadata.name === 'cm-3') as KubeObject), data: { v: '2' } } as never);
      await waitFor(() => calls.some((c) => c.kind === 'update' && c.name === 'cm-3'), { what: 'the update of cm-3', timeoutMs: 15_000 });
      assert.deepEqual([...new Set(calls.filter((c) => c.kind === 'update').map((c) => c.replica))], [ownerOf('cm-3')]);

      // b leaves: a takes b's objects over; b releases them; nobody deletes anything.
      const b = replicas.get('b');
      b?.stop.abort();
      await b?.done;
      const bOwned = names.filter((n) => ownerOf(n) === 'b');
      assert.ok(bOwned.length > 0, 'b owned some objects');
      await waitFor(() => bOwned.every((n) => calls.some((c) => c.replica === 'a' && c.kind === 'add' && c.name === n && c.start > (calls.find((r) => r.replica === 'b' && r.kind === 'release' && r.name === n)?.end ?? Infinity))), { what: "a adds b's objects after b released them", timeoutMs: 15_000 });
      assert.ok(calls.filter((c) => c.kind === 'release').length - firstReleased >= bOwned.length, 'b released its objects');
      assert.deepEqual(calls.filter((c) => c.kind === 'delete'), [], 'a moved object is never a delete');

      // No object was ever in two replicas' handler calls at once.
      const finished = calls.filter((c) => c.end > 0);
      for (const x of finished) {
        for (const y of finished) {
          if (x !== y && x.name === y.name && x.replica !== y.replica) assert.ok(x.end <= y.start || y.end <= x.start, `${x.name}: ${x.replica} ${x.kind} and ${y.replica} ${y.kind} overlapped`);
        }
      }
      const a = replicas.get('a');
      a?.stop.abort();
      await a?.done;
    });
  }

  test('a controller added to a running sharded operator is gated and moves with the ring like the others', async () => {
    const server = await startApiServer();
    const transport = new HttpTransport({ server: server.url });
    stops.push(async () => {
      transport.close();
      await server.stop();
    });
    const configMaps = new Client(ConfigMapKind, transport);
    const names = Array.from({ length: 24 }, (_, i) => `late-${i}`);
    for (const name of names) await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v: '1' } });
    const added = new Map<string, Set<string>>();
    const watcherOf = (who: string): { add: (ctx: HandlerContext, o: KubeObject) => Promise<void>; update: () => Promise<void>; delete: () => Promise<void> } => ({
      add: async (_ctx, object) => void (added.get(who) ?? added.set(who, new Set()).get(who))?.add(object.metadata.name),
      update: async () => undefined,
      delete: async () => undefined,
    });
    const controllerOf = (who: string): InformerController => {
      const controller = new InformerController({ logger: quiet, name: who });
      controller.addInformer(new ShardedInformer(ConfigMapKind, configMaps, 'default', { logger: quiet, errorHandler: () => undefined }));
      controller.addWatcher(watcherOf(who), ConfigMapKind);
      return controller;
    };
    const run = (identity: string): { operator: Operator; stop: AbortController; done: Promise<unknown> } => {
      const operator = new Operator();
      operator.addController(controllerOf(identity));
      const stop = new AbortController();
      const sharding = { name: 'late', namespace: 'default', identity, client: new Client(LeaseKind, transport), slots: 8, leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 100, handOverTimeoutMs: 1_000 };
      return { operator, stop, done: runOperator({ operator, signal: stop.signal, logger: quiet, sharding }) };
    };
    const a = run('a');
    const b = run('b');
    // Stopped before the server (stops run in reverse), also when an assertion fails.
    stops.push(async () => {
      a.stop.abort();
      b.stop.abort();
      await Promise.all([a.done, b.done]);
    });
    const listed = await configMaps.list('default');
    const table = assignSlots('late', 8, ['a', 'b']);
    const ownerOf = (name: string): string => table[slotOf(listed.items.find((o) => o.metadata.name === name)?.metadata.uid ?? '', 8)] ?? '?';
    await waitFor(() => names.every((n) => added.get(ownerOf(n))?.has(n)), { what: 'every object added in its owner', timeoutMs: 15_000 });

    // Added while a runs its slots: it gets a's objects, none of b's.
    a.operator.addController(controllerOf('a-late'));
    const aOwned = names.filter((n) => ownerOf(n) === 'a');
    await waitFor(() => aOwned.every((n) => added.get('a-late')?.has(n)), { what: "a's objects in the late controller", timeoutMs: 15_000 });
    assert.deepEqual([...(added.get('a-late') ?? [])].filter((n) => ownerOf(n) !== 'a'), [], 'the late controller sees only its replica’s slots');

    // b leaves: the late controller takes b's objects over with the rest of a.
    b.stop.abort();
    await b.done;
    await waitFor(() => names.every((n) => added.get('a-late')?.has(n)), { what: "b's objects in a's late controller", timeoutMs: 15_000 });
  });
});
