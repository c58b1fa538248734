/**
 * Garbage in the watch stream, over real HTTP: malformed JSON, events without an object, objects
 * without metadata or without a name, unknown event types, ERROR events without a Status, written by
 * the API server's `injectWatchLines` fault between real changes. The informer must report each
 * (a typed error, counted in `informer_decode_errors_total`), resume, and lose nothing: its
 * handlers converge to the server's list, with no phantom object. Bounded in time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, KubeObject } from '@kubeloop/resource';
import { ConfigMapKind } from '@kubeloop/resource';
import { InformerController, InformerMetrics, JitteredExponentialBackoff, KubernetesBasedInformer, noopLogger } from '@kubeloop/operator';
import type { ErrorHandlerContext, ResourceWatcher } from '@kubeloop/operator';
import { TempDirs } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { NAMESPACE, ReliabilityCluster } from './cluster.js';
import { HandlerRecord, viewKey } from './handler-record.js';
import { ProcessGuard } from './process-guard.js';

/** Lines a broken server, proxy or disk could produce; none is a valid event. */
const GARBAGE: readonly string[] = [
  'this is not JSON',
  '{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"torn',
  '[1,2,3]',
  '"a string"',
  'null',
  '{"type":"ADDED"}',
  '{"type":"MODIFIED","object":null}',
  '{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1"}}',
  '{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":null}}',
  '{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}}',
  '{"type":"DELETED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"namespace":"default"}}}',
  '{"type":"SURPRISE","object":{"metadata":{"name":"x"}}}',
  '{"type":"ERROR"}',
  '{"object":{"metadata":{"name":"no-type"}}}',
];

describe('reliability: garbage in the watch stream', () => {
  const temp = new TempDirs();
  let cluster: ReliabilityCluster;

  before(async () => {
    cluster = await ReliabilityCluster.start(await temp.make('garbage'));
  });

  after(async () => {
    await cluster.stop();
    await temp.removeAll();
  });

  test('malformed lines and objects without metadata are reported and counted, the watch resumes, nothing is lost or invented', { timeout: 60_000 }, async () => {
    const guard = new ProcessGuard();
    guard.start();
    const errors: { ctx: ErrorHandlerContext; err: unknown }[] = [];
    const metrics = new InformerMetrics();
    const controller = new InformerController({ errorHandler: (ctx, err) => errors.push({ ctx, err }), logger: noopLogger });
    const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, cluster.configMaps, NAMESPACE, {
      backoff: new JitteredExponentialBackoff({ initialMs: 50, maxMs: 500 }),
      logger: noopLogger,
      metrics,
    });
    controller.addInformer(informer, 'configmaps');
    const record = new HandlerRecord('mirror', 'version');
    const mirror: ResourceWatcher = {
      add: async (_ctx, o) => record.set(viewKey('configmap', o), o),
      update: async (_ctx, _old, o) => record.set(viewKey('configmap', o), o),
      delete: async (_ctx, o) => record.remove(viewKey('configmap', o), o),
    };
    controller.addWatcher(mirror, 'configmaps');
    const stop = new AbortController();
    let runError: unknown;
    const running = controller.run(stop.signal).catch((e: unknown) => (runError = e));
    let injected = 0;
    try {
      await informer.waitForSync(AbortSignal.timeout(10_000));
      for (let i = 0; i < GARBAGE.length; i++) {
        const name = `g-${i % 5}`;
        const id = { namespace: NAMESPACE, name };
        await waitFor(() => cluster.faults.injectWatchLines([GARBAGE[i]!], { resource: 'configmaps' }) > 0, {
          timeoutMs: 5_000,
          intervalMs: 5,
          what: 'an open ConfigMap watch to write garbage into',
        });
        injected++;
        // A real change right behind the garbage: it must arrive, on this watch or after the resume.
        if (i < 5) await cluster.configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { v: String(i) } });
        else if (i % 4 === 3) await cluster.configMaps.delete(id).catch(() => undefined);
        else await cluster.configMaps.patch(id, { merge: { data: { v: String(i) } } }).catch(() => undefined);
      }
      await waitFor(
        async () => {
          const items: KubeObject[] = (await cluster.configMaps.listAll(NAMESPACE)).items;
          const want = new Map(items.map((o) => [viewKey('configmap', o), o.metadata.resourceVersion ?? '']));
          return record.view.size === want.size && [...want].every(([k, rv]) => record.view.get(k)?.resourceVersion === rv);
        },
        { timeoutMs: 10_000, what: `the mirror to equal the server (it holds ${JSON.stringify([...record.view.keys()])})` },
      );
      assert.deepEqual(record.violations, []);
      const decodeErrors = (await metrics.decodeErrorsTotal.get()).values.reduce((n, v) => n + v.value, 0);
      const watchErrors = errors.filter((e) => e.ctx.source === 'informer' && e.ctx.phase === 'watch');
      assert.ok(decodeErrors >= 1, 'decode errors are counted');
      assert.ok(watchErrors.length >= 1, 'decode errors are reported to the errorHandler');
      assert.ok(errors.every((e) => e.err instanceof Error), `every reported error is an Error: ${errors.map((e) => String(e.err)).join('; ')}`);
      console.log(`stream garbage: ${injected} garbage lines injected, ${decodeErrors} decode errors counted, ${watchErrors.length} watch errors reported, 0 objects lost, 0 invented`);
    } finally {
      stop.abort();
      await running;
      guard.stop();
    }
    assert.equal(runError, undefined, 'the controller never stopped by itself');
    assert.deepEqual(guard.problems, [], 'no unhandled rejection, no uncaught exception');
  });
});
