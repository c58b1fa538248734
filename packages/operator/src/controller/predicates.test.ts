import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { Registry } from 'prom-client';
import { VirtualClock } from '../clock.js';
import type { ErrorHandlerContext } from './informer-controller.js';
import { InformerController } from './informer-controller.js';
import { noopLogger } from '../observability/logger.js';
import {
  and,
  annotationsChanged,
  finalizersChanged,
  generationChanged,
  labelsChanged,
  not,
  or,
  predicateFuncs,
  resourceVersionChanged,
} from './predicates.js';
import type { Predicate, PredicateEvent } from './predicates.js';
import { newController } from '../frontends/reconcile/reconcile-controller.js';
import { reconcileFunc } from '../frontends/reconcile/reconciler.js';
import { FakeInformer, SlowSyncInformer, waitFor, widget, widgetSchema } from '../testing/fake-informer.js';
import { runUntilStopped } from '../testing/run-until-stopped.js';

function changed(edit: (o: KubeObject) => void, base: KubeObject = widget('a')): PredicateEvent {
  const object = structuredClone(base);
  edit(object);
  return { type: 'update', old: base, object };
}

const create: PredicateEvent = { type: 'create', object: widget('a'), isInInitialList: false };
const remove: PredicateEvent = { type: 'delete', object: widget('a') };

async function filteredCount(collectors: unknown[], labels: Record<string, string>): Promise<number> {
  const registry = new Registry();
  for (const c of collectors) registry.registerMetric(c as never);
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'controller_predicate_filtered_events_total');
  return (metric?.values ?? []).filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want)).reduce((sum, v) => sum + Number(v.value), 0);
}

describe('predicates', () => {
  test('each "changed" predicate passes updates that change its part, and always creates and deletes', () => {
    const cases: [Predicate, (o: KubeObject) => void, (o: KubeObject) => void][] = [
      [generationChanged, (o) => (o.metadata.generation = 2), (o) => (o.status = { ready: true })],
      [labelsChanged, (o) => (o.metadata.labels = { app: 'x' }), (o) => (o.metadata.annotations = { a: 'b' })],
      [annotationsChanged, (o) => (o.metadata.annotations = { a: 'b' }), (o) => (o.metadata.labels = { app: 'x' })],
      [finalizersChanged, (o) => (o.metadata.finalizers = ['f']), (o) => (o.metadata.generation = 2)],
      [resourceVersionChanged, (o) => (o.metadata.resourceVersion = '2'), (o) => (o.spec = { x: 1 })],
    ];
    for (const [predicate, relevant, irrelevant] of cases) {
      assert.equal(predicate(changed(relevant)), true, `${relevant.toString()} passes`);
      assert.equal(predicate(changed(irrelevant)), false, `${irrelevant.toString()} is filtered`);
      assert.equal(predicate(create), true);
      assert.equal(predicate(remove), true);
    }
    const noGeneration = widget('a');
    delete noGeneration.metadata.generation;
    assert.equal(generationChanged(changed((o) => (o.status = {}), noGeneration)), true, 'objects without a generation pass');
  });

  test('and, or, not and predicateFuncs compose', () => {
    const statusOnly = changed((o) => (o.status = { ready: true }));
    const labelOnly = changed((o) => (o.metadata.labels = { app: 'x' }));
    assert.equal(or(generationChanged, labelsChanged)(labelOnly), true);
    assert.equal(or(generationChanged, labelsChanged)(statusOnly), false);
    assert.equal(and(generationChanged, labelsChanged)(labelOnly), false);
    assert.equal(and()(statusOnly), true);
    assert.equal(or()(statusOnly), false);
    assert.equal(not(generationChanged)(statusOnly), true);
    const onlyListed = predicateFuncs({ create: (_o, initial) => initial });
    assert.equal(onlyListed({ type: 'create', object: widget('a'), isInInitialList: true }), true);
    assert.equal(onlyListed(create), false);
    assert.equal(onlyListed(statusOnly), true, 'a missing function accepts');
  });

  test('ReconcileController: predicates run before the queue, filtered events are counted, isInInitialList is set', async () => {
    const clock = new VirtualClock();
    const informer = new SlowSyncInformer();
    const reconciled: string[] = [];
    const creates: boolean[] = [];
    const controller = newController({
      kind: widgetSchema,
      informer,
      clock,
      logger: noopLogger,
      predicates: [generationChanged, predicateFuncs({ create: (_o, initial) => (creates.push(initial), true) })],
      reconciler: reconcileFunc(async (_ctx, r) => (reconciled.push(r.name), {})),
    });
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    informer.add(widget('listed'));
    informer.markSynced();
    await waitFor(() => reconciled.length === 1);
    informer.add(widget('created'));
    informer.update(widget('listed'), { ...widget('listed', { rv: '2' }), status: { ready: true } });
    informer.update(widget('listed', { rv: '2' }), widget('listed', { rv: '3', generation: 2 }));
    await waitFor(() => reconciled.length === 3);
    await controller.whenIdle();
    assert.deepEqual(reconciled, ['listed', 'created', 'listed']);
    assert.deepEqual(creates, [true, false]);
    assert.equal(await filteredCount(controller.prometheusCollectors(), { controller: 'widget', event: 'update' }), 1);
    await stop();
  });

  test('InformerController: addInformer predicates filter before the queue; a throwing predicate lets the event through and is reported', async () => {
    const clock = new VirtualClock();
    const informer = new FakeInformer();
    const errors: { ctx: ErrorHandlerContext; err: unknown }[] = [];
    const controller = new InformerController({ clock, logger: noopLogger, errorHandler: (ctx, err) => errors.push({ ctx, err }) });
    const broken: Predicate = (event) => {
      if (event.object.metadata.name === 'bad') throw new Error('predicate bug');
      return true;
    };
    controller.addInformer(informer, 'Widget', { predicates: [broken, finalizersChanged] });
    const seen: string[] = [];
    controller.addWatcher(
      {
        add: async (_c, o) => void seen.push(`add ${o.metadata.name}`),
        update: async (_c, _old, o) => void seen.push(`update ${o.metadata.name}`),
        delete: async (_c, o) => void seen.push(`delete ${o.metadata.name}`),
      },
      'Widget',
    );
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    informer.add(widget('a'));
    informer.update(widget('a'), widget('a', { rv: '2', generation: 2 }));
    const withFinalizer = widget('a', { rv: '3', generation: 2 });
    withFinalizer.metadata.finalizers = ['f'];
    informer.update(widget('a', { rv: '2', generation: 2 }), withFinalizer);
    informer.add(widget('bad'));
    await clock.advance(0);
    await controller.whenIdle();
    assert.deepEqual(seen.sort(), ['add a', 'add bad', 'update a'], 'the generation-only update was filtered, the finalizer one passed');
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.ctx.objectKey, 'default/bad');
    assert.equal(await filteredCount(controller.prometheusCollectors(), { controller: 'Widget', event: 'update' }), 1);
    await stop();
  });
});
