/**
 * Issue 26, first slice: sharded informers (KEP-5866) over real HTTP against the embedded API
 * server, with the feature (the server filters and echoes `shardInfo`) and without it
 * (`shardedListAndWatch: false`: the informer filters on the client, says so once in its log and in
 * `informer_shard_client_filtering`). Three informers on three equal ranges must hold and deliver
 * exactly their shard, together every object once, in both modes and with both initial list
 * strategies.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { Client, ConfigMapKind, ShardSelector, shardRanges, splitShardSpace } from '@kubeloop/resource';
import type { ConfigMap, ShardRange } from '@kubeloop/resource';
import { InformerMetrics, KubernetesBasedInformer, SimpleWatcher } from '@kubeloop/operator';
import type { InitialListStrategy, Logger } from '@kubeloop/operator';
import { KubeconfigServer } from './support/kubeconfig-server.js';
import { waitFor } from './support/wait-for.js';

/** A logger that keeps what it is told. */
function recordingLogger(lines: string[]): Logger {
  const keep = (message: string): void => void lines.push(message);
  return { debug: keep, info: keep, warn: keep, error: keep };
}

const fallbackLine = /did not apply the shard selector/;

/** The names of the objects an informer holds, sorted. */
function names(informer: KubernetesBasedInformer<ConfigMap>): string[] {
  return [...informer.store.values()].map((cm) => cm.metadata.name).sort();
}

/** One informer on one shard, with what it delivered and what it logged. */
interface ShardedInformer {
  readonly range: ShardRange;
  readonly informer: KubernetesBasedInformer<ConfigMap>;
  readonly delivered: string[];
  readonly logLines: string[];
  readonly metrics: InformerMetrics;
  readonly stop: () => Promise<void>;
}

async function metricValue(metrics: InformerMetrics, name: string): Promise<number | undefined> {
  const registry = new Registry();
  for (const c of metrics.collectors()) registry.registerMetric(c);
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values as { value: number }[] | undefined)?.[0]?.value;
}

for (const feature of [true, false]) {
  describe(`sharded informers, server ${feature ? 'with' : 'without'} sharded list and watch`, () => {
    let api: KubeconfigServer;
    let client: Client<ConfigMap>;

    before(async () => {
      api = await KubeconfigServer.start({ shardedListAndWatch: feature });
      client = new Client(ConfigMapKind, api.newTransport());
    });
    after(() => api.stop());

    test('Client.list: shardInfo echoed only by a server with the feature', async () => {
      await api.createNamespace('list-echo');
      for (let i = 0; i < 6; i++) await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'list-echo' } });
      const selector = shardRanges([splitShardSpace(2)[0]!]);
      const page = await client.list('list-echo', { shardSelector: selector });
      if (feature) {
        assert.deepEqual(page.metadata.shardInfo, { selector: selector.toString() });
        assert.ok(page.items.every((cm) => selector.matches(cm)));
      } else {
        assert.equal(page.metadata.shardInfo, undefined);
        assert.equal(page.items.length, 6);
      }
    });

    for (const strategy of ['list', 'watchList'] as InitialListStrategy[]) {
      test(`three informers on three ranges (${strategy}): each holds and delivers its shard only, together every object once`, async () => {
        const ns = `shards-${strategy.toLowerCase()}`;
        await api.createNamespace(ns);
        const create = (name: string): Promise<ConfigMap> => client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns } });
        for (let i = 0; i < 30; i++) await create(`before-${i}`);
        const informers: ShardedInformer[] = splitShardSpace(3).map((range) => {
          const delivered: string[] = [];
          const logLines: string[] = [];
          const metrics = new InformerMetrics();
          const record = (line: string): Promise<void> => {
            delivered.push(line);
            return Promise.resolve();
          };
          const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, new Client(ConfigMapKind, api.newTransport()), ns, {
            shard: [range],
            pageSize: 7,
            initialListStrategy: strategy,
            logger: recordingLogger(logLines),
            metrics,
          });
          informer.addEventHandler(
            new SimpleWatcher<ConfigMap>({
              addFunc: (_ctx, cm) => record(`add ${cm.metadata.name}`),
              updateFunc: (_ctx, _old, cm) => record(`update ${cm.metadata.name}`),
              deleteFunc: (_ctx, cm) => record(`delete ${cm.metadata.name}`),
            }),
          );
          const controller = new AbortController();
          const running = informer.run(controller.signal);
          return { range, informer, delivered, logLines, metrics, stop: () => (controller.abort(), running) };
        });
        try {
          await Promise.all(informers.map((s) => s.informer.waitForSync()));
          const all = (await client.listAll(ns)).items;
          const owner = (cm: ConfigMap): ShardedInformer => {
            const owners = informers.filter((s) => shardRanges([s.range]).matches(cm));
            assert.equal(owners.length, 1, `${cm.metadata.name} in exactly one range`);
            return owners[0]!;
          };
          for (const s of informers) {
            const expected = all.filter((cm) => owner(cm) === s).map((cm) => cm.metadata.name).sort();
            assert.deepEqual(names(s.informer), expected);
          }
          // Live changes: each goes to its shard's informer only.
          const made: ConfigMap[] = [];
          for (let i = 0; i < 12; i++) made.push(await create(`live-${i}`));
          await client.patch({ namespace: ns, name: 'live-0' }, { merge: { data: { x: '1' } } });
          await client.delete({ namespace: ns, name: 'live-1' });
          const live = (s: ShardedInformer): string[] => s.delivered.filter((d) => d.includes(' live-'));
          const expectedLive = (s: ShardedInformer): string[] => {
            const out = made.filter((cm) => owner(cm) === s).map((cm) => `add ${cm.metadata.name}`);
            if (owner(made[0]!) === s) out.push('update live-0');
            if (owner(made[1]!) === s) out.push('delete live-1');
            return out;
          };
          for (const s of informers) await waitFor(() => live(s).length === expectedLive(s).length, { what: `live events of ${shardRanges([s.range]).toString()}` });
          for (const s of informers) {
            assert.deepEqual(live(s), expectedLive(s));
            assert.ok(s.delivered.every((d) => owner(all.concat(made).find((cm) => d.endsWith(` ${cm.metadata.name}`))!) === s), 'nothing of another shard delivered');
            // Said once: in the log, and in the metrics.
            assert.equal(s.logLines.filter((l) => fallbackLine.test(l)).length, feature ? 0 : 1);
            assert.equal(await metricValue(s.metrics, 'informer_shard_client_filtering'), feature ? 0 : 1);
            const filtered = (await metricValue(s.metrics, 'informer_shard_filtered_events_total')) ?? 0;
            if (feature) assert.equal(filtered, 0, 'the server filtered');
            else assert.ok(filtered > 0, 'the client filtered');
          }
          // A relist (410) is filtered the same way and not logged again.
          const relists = informers.map(() => 0);
          informers.forEach((s, i) => s.informer.on('relist', () => relists[i]!++));
          // A write the informers do not watch (another namespace), then the history forgotten and the watches cut:
          // every informer resumes from before it into a 410 and relists.
          await create('after-relist');
          await api.createNamespace(`${ns}-elsewhere`);
          api.server.faults.compact();
          api.server.faults.dropWatches();
          await waitFor(() => relists.every((n) => n >= 1), { what: 'every informer relisted after the 410' });
          const afterRelist = (await client.listAll(ns)).items;
          for (const s of informers) {
            const expected = afterRelist.filter((cm) => owner(cm) === s).map((cm) => cm.metadata.name).sort();
            await waitFor(() => JSON.stringify(names(s.informer)) === JSON.stringify(expected), { what: 'the shard after the relist' });
            assert.equal(s.logLines.filter((l) => fallbackLine.test(l)).length, feature ? 0 : 1);
          }
          if (feature) assert.ok(api.server.connectionStats().shardCounters.apiserver_watch_shards_total >= 3);
        } finally {
          for (const s of informers) await s.stop();
        }
      });
    }
  });
}

test('an informer refuses a shard of ranges on two fields, or of none', () => {
  const client = { list: () => Promise.reject(new Error('unused')), watch: () => Promise.reject(new Error('unused')) };
  const [uidRange] = splitShardSpace(2, 'uid');
  const [nsRange] = splitShardSpace(2, 'namespace');
  assert.throws(() => new KubernetesBasedInformer(ConfigMapKind, client, '', { shard: [uidRange!, nsRange!] }), /shard: all shard ranges must use the same field/);
  assert.throws(() => new KubernetesBasedInformer(ConfigMapKind, client, '', { shard: [] }), /shard: a shard selector needs at least one range/);
  assert.doesNotThrow(() => new KubernetesBasedInformer(ConfigMapKind, client, '', { shard: ShardSelector.parse("shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')") }));
});
