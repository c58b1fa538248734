// What InformerController does for the registrations every operator makes: Kind keys, warnings for
// keys that cannot match, the informer metrics published without wiring, a logger bound to the object.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { ConfigMapKind } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { InformerController } from './informer-controller.js';
import { KubernetesBasedInformer } from '../informer/kubernetes-based-informer.js';
import { InformerMetrics } from '../observability/metrics.js';
import { resourceKindKey } from './registration-key.js';
import { SimpleReconciler } from '../handlers/simple-reconciler.js';
import { FakeInformer, widget, widgetSchema } from '../testing/fake-informer.js';
import { startEmbeddedCluster, waitFor } from '../frontends/reconcile/embedded-cluster.test-helper.js';
import type { EmbeddedCluster } from '../frontends/reconcile/embedded-cluster.test-helper.js';
import { runUntilStopped } from '../testing/run-until-stopped.js';
import { recordingLogger } from '../testing/recording-logger.js';

/** A logger that keeps every line. */
describe('resourceKindKey', () => {
  test('is the group-qualified kind, the bare kind for the core group, a string as it is', () => {
    assert.equal(resourceKindKey(widgetSchema), 'Widget.test.kubeloop.dev');
    assert.equal(resourceKindKey(ConfigMapKind), 'ConfigMap');
    assert.equal(resourceKindKey('playlists'), 'playlists');
  });
});

describe('registration keys', () => {
  test('an informer added without a key serves the handlers registered with its Kind', async () => {
    const informer = new FakeInformer();
    const controller = new InformerController({ logger: recordingLogger() });
    const seen: string[] = [];
    controller.addInformer(informer);
    controller.addReconciler(new SimpleReconciler({ reconcileFunc: async (_ctx, req) => (seen.push(req.object.metadata.name), {}) }), widgetSchema);
    controller.addReconciler(new SimpleReconciler({ reconcileFunc: async (_ctx, req) => (seen.push(`by string ${req.object.metadata.name}`), {}) }), 'Widget.test.kubeloop.dev');
    const stop = runUntilStopped(controller);
    informer.add(widget('w1'));
    await controller.whenIdle();
    await stop();
    assert.deepEqual(seen, ['w1', 'by string w1']);
  });

  test('run() warns about handlers whose key no informer serves and informers without handlers', async () => {
    const logger = recordingLogger();
    const controller = new InformerController({ logger });
    controller.addInformer(new FakeInformer(), widgetSchema);
    controller.addReconciler(new SimpleReconciler({}), 'Widgets'); // a typo: the informer's key is Widget.test.kubeloop.dev
    const stop = runUntilStopped(controller);
    await stop();
    const warnings = logger.at('warn').map((l) => l.message);
    assert.deepEqual(warnings, [
      'watchers and reconcilers of resourceKind "Widgets" get no events: no informer is registered under that key (registered informers: "Widget.test.kubeloop.dev")',
      'the informer of resourceKind "Widget.test.kubeloop.dev" has no watcher or reconciler: its events are dropped',
    ]);
  });

  test('matching registrations start without a warning', async () => {
    const logger = recordingLogger();
    const controller = new InformerController({ logger });
    controller.addInformer(new FakeInformer());
    controller.addWatcher({ add: async () => {}, update: async () => {}, delete: async () => {} }, widgetSchema);
    const stop = runUntilStopped(controller);
    await stop();
    assert.deepEqual(logger.at('warn'), []);
  });
});

describe('InformerController on the embedded API server', () => {
  let cluster: EmbeddedCluster;
  before(async () => {
    cluster = await startEmbeddedCluster();
  });
  after(() => cluster.stop());

  test('publishes the informer metrics of informers added without metrics, and binds the handler logger to the object', async () => {
    const configMaps = cluster.client(ConfigMapKind);
    const logger = recordingLogger();
    const controller = new InformerController({ logger, metricsNamespace: 'demo' });
    controller.addInformer(new KubernetesBasedInformer(ConfigMapKind, configMaps, 'default'));
    controller.addReconciler(
      new SimpleReconciler<ConfigMap>({
        reconcileFunc: async (ctx, req) => {
          ctx.logger.info('reconciled', { data: req.object.data?.mode });
          return {};
        },
      }),
      ConfigMapKind,
    );
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    try {
      await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'default' }, data: { mode: 'fast' } });
      await waitFor(() => logger.lines.some((l) => l.message === 'reconciled'), { what: 'the reconcile of cm1' });
      assert.deepEqual(logger.lines.find((l) => l.message === 'reconciled')?.attributes, { kind: 'ConfigMap', object: 'default/cm1', data: 'fast' });

      const registry = new Registry();
      for (const collector of controller.prometheusCollectors()) registry.registerMetric(collector);
      const text = await registry.metrics();
      assert.match(text, /^demo_informer_relists_total\{kind="ConfigMap"\} 1$/m);
      assert.match(text, /^demo_informer_watch_connects_total\{kind="ConfigMap"\} [1-9]/m);
      assert.match(text, /^demo_informer_last_sync_timestamp_seconds\{kind="ConfigMap"\} [1-9]/m);
      assert.match(text, /^demo_informer_events_total\{event_type="CREATE",kind="ConfigMap"\} 1$/m);
    } finally {
      stop.abort();
      await running;
    }
  });

  test('leaves the informer families out when every informer counts into metrics of its own (no duplicate registration)', () => {
    const own = new InformerMetrics();
    const controller = new InformerController({ logger: recordingLogger() });
    controller.addInformer(new KubernetesBasedInformer(ConfigMapKind, cluster.client(ConfigMapKind), 'default', { metrics: own }));
    const registry = new Registry();
    for (const collector of [...controller.prometheusCollectors(), ...own.collectors()]) registry.registerMetric(collector);
    assert.ok(registry.getSingleMetric('informer_relists_total'));
  });
});
