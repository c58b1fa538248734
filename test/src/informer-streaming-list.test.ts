/**
 * Issue 17, item 5: the streaming initial list (WatchList) against the embedded API server over
 * real HTTP: the initial state and relists after a 410 come from one watch with
 * `sendInitialEvents=true` up to the `k8s.io/initial-events-end` bookmark, no LIST; a stream cut in
 * the middle is streamed again; `auto` falls back to a paginated LIST when the server refuses it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConfigMapKind } from '@kubeloop/resource';
import type { ConfigMap, ListObject, ListOptions, WatchEvent, WatchOptions, WatchResponse } from '@kubeloop/resource';
import { KubernetesBasedInformer, noopLogger } from '@kubeloop/operator';
import type { InformerErrorContext, InformerState, ListWatchClient } from '@kubeloop/operator';
import { KubeconfigServer } from './support/kubeconfig-server.js';
import { waitFor } from './support/wait-for.js';

/** The real client, recording each request; `onStreamEvent` runs after each event a streaming-list watch yields. */
class RecordingClient implements ListWatchClient<ConfigMap> {
  readonly requests: string[] = [];
  onStreamEvent: ((count: number) => void) | undefined;
  constructor(private readonly client: Client<ConfigMap>) {}

  list(namespace: string, options?: ListOptions): Promise<ListObject<ConfigMap>> {
    this.requests.push('list');
    return this.client.list(namespace, options);
  }

  async watch(namespace: string, options: WatchOptions = {}): Promise<WatchResponse<ConfigMap>> {
    const streaming = options.sendInitialEvents === true;
    this.requests.push(streaming ? 'stream' : `watch@${options.resourceVersion ?? ''}`);
    const watch = await this.client.watch(namespace, options);
    const hook = streaming ? this.onStreamEvent : undefined;
    if (hook === undefined) return watch;
    return {
      stop: () => watch.stop(),
      async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<ConfigMap>> {
        let count = 0;
        for await (const event of watch) {
          yield event;
          hook(++count);
        }
      },
    };
  }
}

/** A backoff with no delay: retries here are driven by real I/O, not by time. */
const noDelay = { next: (): number => 0, reset: (): void => undefined };

describe('KubernetesBasedInformer with a streaming initial list (real HTTP)', () => {
  let api: KubeconfigServer;
  let client: Client<ConfigMap>;

  before(async () => {
    api = await KubeconfigServer.start();
    client = new Client(ConfigMapKind, api.transport);
  });

  after(() => api.stop());

  async function namespaceWith(ns: string, count: number, bytesEach = 10): Promise<void> {
    await api.createNamespace(ns);
    const filler = 'x'.repeat(bytesEach);
    for (let i = 0; i < count; i += 20) {
      const batch = [];
      for (let j = i; j < Math.min(count, i + 20); j++) {
        batch.push(client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${j}`, namespace: ns }, data: { filler } }));
      }
      await Promise.all(batch);
    }
  }

  function start(
    ns: string,
    recording: RecordingClient,
    strategy: 'watchList' | 'auto',
  ): { informer: KubernetesBasedInformer<ConfigMap>; states: InformerState[]; errors: { error: unknown; context: InformerErrorContext }[]; stop: () => Promise<void> } {
    const errors: { error: unknown; context: InformerErrorContext }[] = [];
    const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, recording, ns, {
      initialListStrategy: strategy,
      backoff: noDelay,
      logger: noopLogger,
      errorHandler: (context, error) => errors.push({ error, context }),
    });
    const states: InformerState[] = [];
    informer.on('stateChange', (s) => states.push(s));
    const controller = new AbortController();
    const running = informer.run(controller.signal);
    return {
      informer,
      states,
      errors,
      stop: async () => {
        controller.abort();
        await running;
      },
    };
  }

  test('the initial state comes from one streaming watch, no LIST, then the watch goes on from its resourceVersion', { timeout: 30_000 }, async () => {
    await namespaceWith('stream-basic', 30);
    const recording = new RecordingClient(client);
    const run = start('stream-basic', recording, 'watchList');
    try {
      await run.informer.waitForSync(AbortSignal.timeout(10_000));
      assert.equal(run.informer.store.size, 30);
      const synced = run.informer.lastSyncResourceVersion();
      await waitFor(() => recording.requests.length >= 2, { what: 'the watch after the stream' });
      assert.deepEqual(recording.requests.slice(0, 2), ['stream', `watch@${synced}`]);
      await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late', namespace: 'stream-basic' }, data: {} });
      await waitFor(() => run.informer.store.get('stream-basic/late'), { what: 'a live change after the stream' });
      assert.equal(recording.requests.includes('list'), false);
    } finally {
      await run.stop();
    }
  });

  test('a stream cut in the middle is streamed again from scratch, and the cache holds every object once', { timeout: 60_000 }, async () => {
    // About 12 MB of initial events: far more than the socket buffers hold, so the cut lands before the end bookmark.
    await namespaceWith('stream-cut', 400, 30_000);
    const recording = new RecordingClient(client);
    let drops = 0;
    recording.onStreamEvent = (count) => {
      if (count === 5 && drops === 0) drops = api.server.faults.dropWatches();
    };
    const run = start('stream-cut', recording, 'auto');
    try {
      await run.informer.waitForSync(AbortSignal.timeout(30_000));
      assert.equal(drops, 1, 'the stream was open when cut');
      assert.equal(run.informer.store.size, 400);
      assert.deepEqual(
        recording.requests.filter((r) => r === 'stream' || r === 'list'),
        ['stream', 'stream'],
        'a cut stream is not a refusal: streamed again, no LIST',
      );
      assert.equal(run.errors.filter((e) => e.context.phase === 'list').length, 1);
      assert.deepEqual(
        run.states.slice(0, 3).map((s) => s.phase),
        ['BackingOff', 'StreamingList', 'Listed'],
      );
    } finally {
      await run.stop();
    }
  });

  test('a relist after a 410 takes the streaming path too, and delivers the deletes it finds', { timeout: 30_000 }, async () => {
    await namespaceWith('stream-gone', 10);
    const recording = new RecordingClient(client);
    const run = start('stream-gone', recording, 'watchList');
    const deleted: string[] = [];
    run.informer.addEventHandler({
      add: async () => undefined,
      update: async () => undefined,
      delete: async (_ctx, object) => {
        deleted.push(object.metadata.name);
      },
    });
    try {
      await run.informer.waitForSync(AbortSignal.timeout(10_000));
      await waitFor(() => recording.requests.length >= 2, { what: 'the watch after the stream' });
      // While no watch is open, a delete happens and the history is forgotten: the resume gets 410.
      api.server.faults.failNext({ verb: 'watch', status: 500, count: 1 });
      api.server.faults.dropWatches();
      await client.delete({ namespace: 'stream-gone', name: 'cm-3' });
      api.server.faults.compact();
      await waitFor(() => deleted.includes('cm-3'), { what: 'the delete found by the relist' });
      assert.equal(recording.requests.filter((r) => r === 'stream').length, 2);
      assert.equal(recording.requests.includes('list'), false);
      assert.ok(run.states.some((s) => s.phase === 'StreamingList' && s.reason === 'expired'));
      assert.equal(run.informer.store.size, 9);
    } finally {
      await run.stop();
    }
  });

  test('auto falls back to a paginated LIST when the server refuses the streaming request; watchList streams again', { timeout: 30_000 }, async () => {
    await namespaceWith('stream-refused', 5);
    const refusal = { verb: 'watch', status: 422, count: 1, message: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled' } as const;

    const firstRequests = { auto: ['stream', 'list'], watchList: ['stream', 'stream'] } as const;
    for (const strategy of ['auto', 'watchList'] as const) {
      api.server.faults.failNext(refusal);
      const recording = new RecordingClient(client);
      const run = start('stream-refused', recording, strategy);
      try {
        await run.informer.waitForSync(AbortSignal.timeout(10_000));
        assert.deepEqual(recording.requests.slice(0, 2), firstRequests[strategy], strategy);
        assert.equal(run.informer.store.size, 5, strategy);
      } finally {
        await run.stop();
      }
    }
  });
});
