/**
 * How KubernetesBasedInformer restarts its watch against the embedded API server over real HTTP: a
 * clean end (what kube-apiserver does at `timeoutSeconds`, here `dropWatches({ graceful: true })`)
 * is no error and re-watches at once; after faults, a watch that worked starts the error backoff
 * over (issue 9, items 2 and 3).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConfigMapKind } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { JitteredExponentialBackoff, KubernetesBasedInformer, SimpleWatcher, noopLogger } from '@kubeloop/operator';
import type { Backoff, InformerState } from '@kubeloop/operator';
import { KubeconfigServer } from './support/kubeconfig-server.js';
import { waitFor } from './support/wait-for.js';

/** The informer's backoff, with every delay it handed out recorded. */
class RecordingBackoff implements Backoff {
  readonly delays: number[] = [];
  constructor(private readonly inner: Backoff) {}
  next(): number {
    const delay = this.inner.next();
    this.delays.push(delay);
    return delay;
  }
  reset(): void {
    this.inner.reset();
  }
}

describe('KubernetesBasedInformer watch restarts over real HTTP', () => {
  let api: KubeconfigServer;
  let writer: Client<ConfigMap>;
  let informerClient: Client<ConfigMap>;

  before(async () => {
    api = await KubeconfigServer.start();
    writer = new Client(ConfigMapKind, api.newTransport());
    informerClient = new Client(ConfigMapKind, api.transport);
  });

  after(() => api.stop());

  function start(namespace: string, backoff: Backoff) {
    const seen = new Map<string, string>();
    const errors: unknown[] = [];
    const watchStarts: string[] = [];
    const states: InformerState[] = [];
    const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, informerClient, namespace, {
      backoff,
      logger: noopLogger,
      errorHandler: (_context, error) => errors.push(error),
    });
    informer.on('watchStart', (rv) => watchStarts.push(rv));
    informer.on('stateChange', (s) => states.push(s));
    informer.addEventHandler(
      new SimpleWatcher<ConfigMap>({
        addFunc: async (_ctx, o) => void seen.set(o.metadata.name, o.data?.['v'] ?? ''),
        updateFunc: async (_ctx, _old, o) => void seen.set(o.metadata.name, o.data?.['v'] ?? ''),
        deleteFunc: async (_ctx, o) => void seen.delete(o.metadata.name),
      }),
    );
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    return { informer, seen, errors, watchStarts, states, stop, running };
  }

  test('a graceful end of the watch re-watches at once from the last resourceVersion and is no error, even right after a reconnect', { timeout: 30_000 }, async () => {
    const ns = 'default';
    const backoff = new RecordingBackoff(new JitteredExponentialBackoff());
    const run = start(ns, backoff);
    await run.informer.waitForSync(AbortSignal.timeout(10_000));
    await waitFor(() => run.watchStarts.length === 1, { what: 'the first watch' });

    const created = await writer.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'graceful', namespace: ns }, data: { v: '1' } });
    await waitFor(() => run.seen.get('graceful') === '1', { what: 'the create' });
    assert.equal(api.server.faults.dropWatches({ graceful: true }), 1);
    await waitFor(() => run.watchStarts.length === 2, { timeoutMs: 5000, what: 'the re-watch' });
    assert.equal(run.watchStarts[1], created.metadata.resourceVersion, 'resumed from the last resourceVersion seen');
    // At once again, right after that reconnect: no event on the new watch yet, well under a second.
    assert.equal(api.server.faults.dropWatches({ graceful: true }), 1);
    await waitFor(() => run.watchStarts.length === 3, { timeoutMs: 5000, what: 'the second re-watch' });

    await writer.patch({ namespace: ns, name: 'graceful' }, { merge: { data: { v: '2' } } });
    await waitFor(() => run.seen.get('graceful') === '2', { what: 'the update after the re-watches' });
    assert.deepEqual(run.errors, [], 'a clean end is not an error');
    assert.deepEqual(backoff.delays, [], 'the error backoff was never used');
    assert.ok(!run.states.some((s) => s.phase === 'BackingOff'), 'never waited');
    run.stop.abort();
    await run.running;
  });

  test('after each fault, a watch that delivered events starts the error backoff over (4 faults, first delay each time)', { timeout: 60_000 }, async () => {
    const ns = 'kube-system';
    // No jitter: 800, 1600, 3200, 6400 ms if the backoff only grew.
    const backoff = new RecordingBackoff(new JitteredExponentialBackoff({ jitter: 'none' }));
    const run = start(ns, backoff);
    await run.informer.waitForSync(AbortSignal.timeout(10_000));
    for (let fault = 0; fault < 4; fault++) {
      await waitFor(() => run.watchStarts.length >= 1 && run.states.at(-1)?.phase === 'Watching', { what: 'a running watch' });
      const starts = run.watchStarts.length;
      await writer.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `fault-${fault}`, namespace: ns }, data: { v: String(fault) } });
      await waitFor(() => run.seen.get(`fault-${fault}`) === String(fault), { what: `the event before fault ${fault}` });
      api.server.faults.dropWatches({ midLine: true });
      await waitFor(() => run.watchStarts.length > starts, { timeoutMs: 10_000, what: `the re-watch after fault ${fault}` });
    }
    assert.deepEqual(backoff.delays, [800, 800, 800, 800]);
    assert.equal(run.errors.length, 4, 'each cut connection was reported');
    run.stop.abort();
    await run.running;
  });
});
