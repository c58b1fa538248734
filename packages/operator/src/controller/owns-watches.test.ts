/**
 * `owns` and `watches`: events of a secondary informer become resyncs of their primary, read from the
 * primary's cache and queued in the primary's own queue (controller-runtime's `Owns()`/`Watches()`,
 * kube-rs' `Controller::owns`/`watches`).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { context } from '@opentelemetry/api';
import type { KubeObject, OwnerReference, Schema } from '@kubeloop/resource';
import { Registry } from 'prom-client';
import { VirtualClock } from '../clock.js';
import { ReconcileAction } from '../handlers/actions.js';
import { newOpinionatedReconciler } from '../handlers/opinionated-reconciler.js';
import type { ReconcileRequest } from '../handlers/reconciler.js';
import type { ErrorHandlerContext } from './informer-controller.js';
import { InformerController } from './informer-controller.js';
import { ErrInformerAlreadyAdded, isInvalidArgumentError } from '../errors.js';
import { noopLogger } from '../observability/logger.js';
import type { LogAttributes, Logger } from '../observability/logger.js';
import { generationChanged } from './predicates.js';
import { getTracer, setTracer } from '../observability/tracing.js';
import { FakeInformer, SlowSyncInformer, deferred, waitFor, widget, widgetSchema } from '../testing/fake-informer.js';
import { FakePatchClient } from '../testing/informer-fakes.test-helper.js';
import { RecordingTracer, TestContextManager } from '../testing/tracing-fakes.test-helper.js';
import { runUntilStopped } from '../testing/run-until-stopped.js';

const gadgetSchema: Schema = { ...widgetSchema, kind: 'Gadget', plural: 'gadgets' };
/** The registration keys: the group-qualified kinds. */
const WIDGETS = 'Widget.test.kubeloop.dev';
const GADGETS = 'Gadget.test.kubeloop.dev';
const F = 'test.kubeloop.dev/cleanup';

/** An owner reference to the Widget `name`; `controller` unless told otherwise. */
function ownedBy(name: string, options: { controller?: boolean; apiVersion?: string; kind?: string } = {}): OwnerReference {
  const ref: OwnerReference = { apiVersion: options.apiVersion ?? widgetSchema.apiVersion, kind: options.kind ?? 'Widget', name, uid: `uid-${name}` };
  if (options.controller !== false) ref.controller = true;
  return ref;
}

/** A Gadget (the secondary kind) with the given owners, labels and resourceVersion. */
function gadget(name: string, options: { owners?: OwnerReference[]; labels?: Record<string, string>; rv?: string; generation?: number } = {}): KubeObject {
  const object: KubeObject = {
    apiVersion: gadgetSchema.apiVersion,
    kind: 'Gadget',
    metadata: { name, namespace: 'default', resourceVersion: options.rv ?? '1', generation: options.generation ?? 1 },
  };
  if (options.owners !== undefined) object.metadata.ownerReferences = options.owners;
  if (options.labels !== undefined) object.metadata.labels = options.labels;
  return object;
}

interface Call {
  action: string;
  name: string;
  rv: string;
}

/** A controller of Widgets (the primary) with a recording watcher and reconciler, and a Gadget informer not added yet. */
function setup(options: { reconcile?: (request: ReconcileRequest) => Promise<void> } = {}) {
  const clock = new VirtualClock();
  const errors: { ctx: ErrorHandlerContext; err: unknown }[] = [];
  const controller = new InformerController({ clock, logger: noopLogger, errorHandler: (ctx, err) => errors.push({ ctx, err }) });
  const widgets = new FakeInformer(widgetSchema);
  const gadgets = new FakeInformer(gadgetSchema);
  const reconciled: Call[] = [];
  const watched: string[] = [];
  controller.addInformer(widgets, widgetSchema);
  controller.addWatcher(
    {
      add: async (_ctx, o) => void watched.push(`add ${o.metadata.name}`),
      update: async (_ctx, old, o) => void watched.push(`update ${o.metadata.name}@${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`),
      delete: async (_ctx, o) => void watched.push(`delete ${o.metadata.name}`),
    },
    widgetSchema,
  );
  controller.addReconciler(
    {
      reconcile: async (_ctx, request) => {
        reconciled.push({ action: ReconcileAction[request.action], name: request.object.metadata.name, rv: request.object.metadata.resourceVersion ?? '' });
        await options.reconcile?.(request);
        return {};
      },
    },
    widgetSchema,
  );
  return { clock, controller, widgets, gadgets, reconciled, watched, errors };
}

/** A few macrotask turns: whatever work could start has started. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

const names = (calls: Call[]): string[] => calls.map((c) => `${c.action} ${c.name}@${c.rv}`);

/** The samples of metric `name` (a histogram's `_bucket`, `_sum` and `_count` samples named in `sample`). */
async function metricValues(controller: InformerController, name: string): Promise<{ sample: string; labels: Record<string, string | number>; value: number }[]> {
  const registry = new Registry();
  for (const c of controller.prometheusCollectors()) registry.registerMetric(c);
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []).map((v) => ({ sample: (v as { metricName?: string }).metricName ?? name, labels: v.labels as Record<string, string | number>, value: Number(v.value) }));
}

describe('InformerController.owns and watches', () => {
  test('owns: a Gadget event resyncs the Widget of its controller owner reference, read from the Widget cache; reconcilers only, not watchers', async () => {
    const { controller, widgets, gadgets, reconciled, watched } = setup();
    controller.owns(gadgets, { primary: widgetSchema });
    const stop = runUntilStopped(controller);
    widgets.add(widget('a', { rv: '5' }));
    widgets.add(widget('b', { rv: '6' }));
    await controller.whenIdle();
    reconciled.length = 0;
    watched.length = 0;

    gadgets.add(gadget('g1', { owners: [ownedBy('a')] }));
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Resynced a@5'], 'the cached Widget, as a resync');
    assert.deepEqual(watched, [], 'watchers are told of events of their kind only');

    gadgets.add(gadget('g2', { owners: [ownedBy('b', { controller: false })] }));
    gadgets.add(gadget('g3', { owners: [ownedBy('b', { apiVersion: 'other.example.com/v1' })] }));
    gadgets.add(gadget('g4', { owners: [ownedBy('b', { kind: 'Sprocket' })] }));
    gadgets.add(gadget('g5'));
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Resynced a@5'], 'a non-controller owner, an owner of another group or kind, and no owner map to nothing');

    gadgets.add(gadget('g6', { owners: [ownedBy('a', { controller: false }), ownedBy('b')] }));
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Resynced a@5', 'Resynced b@6'], 'only the controller reference counts among several');

    reconciled.length = 0;
    gadgets.update(gadget('g1', { owners: [ownedBy('a')] }), gadget('g1', { owners: [ownedBy('b')], rv: '2' }));
    await controller.whenIdle();
    assert.deepEqual(names(reconciled).sort(), ['Resynced a@5', 'Resynced b@6'], 'an owner change reconciles the old and the new owner');

    reconciled.length = 0;
    gadgets.delete(gadget('g1', { owners: [ownedBy('b')], rv: '2' }));
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Resynced b@6'], 'a deleted child reconciles its owner (to create it again)');
    await stop();
  });

  test('a primary that is not in the cache is skipped', async () => {
    const { controller, widgets, gadgets, reconciled, errors } = setup();
    controller.owns(gadgets, { primary: widgetSchema });
    const stop = runUntilStopped(controller);
    widgets.add(widget('a'));
    await controller.whenIdle();
    reconciled.length = 0;
    gadgets.add(gadget('g1', { owners: [ownedBy('ghost')] }));
    widgets.delete(widget('a'));
    gadgets.add(gadget('g2', { owners: [ownedBy('a')] }));
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Deleted a@1'], 'no resync of a Widget the cache does not hold');
    assert.deepEqual(errors, []);
    await stop();
  });

  test('watches: the map function names the primaries; an update maps old and new; a throwing map is reported and maps to nothing', async () => {
    const { controller, widgets, gadgets, reconciled, errors } = setup();
    controller.watches(gadgets, {
      primary: WIDGETS,
      map: (g) => {
        const target = g.metadata.labels?.['widget'];
        if (target === 'boom') throw new Error('map failed');
        return target === undefined ? [] : [{ namespace: g.metadata.namespace ?? '', name: target }];
      },
    });
    const stop = runUntilStopped(controller);
    widgets.add(widget('a', { rv: '7' }));
    widgets.add(widget('b', { rv: '8' }));
    await controller.whenIdle();
    reconciled.length = 0;

    gadgets.add(gadget('g1', { labels: { widget: 'a' } }));
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Resynced a@7']);

    gadgets.update(gadget('g1', { labels: { widget: 'a' } }), gadget('g1', { labels: { widget: 'b' }, rv: '2' }));
    await controller.whenIdle();
    assert.deepEqual(names(reconciled).sort(), ['Resynced a@7', 'Resynced a@7', 'Resynced b@8'].sort());

    reconciled.length = 0;
    gadgets.add(gadget('g2', { labels: { widget: 'boom' } }));
    gadgets.add(gadget('g3', { labels: { widget: 'b' } }));
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Resynced b@8'], 'the informer goes on after a throwing map');
    assert.equal(errors.length, 1);
    assert.equal((errors[0]!.err as Error).message, 'map failed');
    assert.deepEqual([errors[0]!.ctx.source, errors[0]!.ctx.resourceKind, errors[0]!.ctx.objectKey], ['controller', GADGETS, 'default/g2']);
    await stop();
  });

  test("a resync waits in the primary's own queue: never beside the primary's running reconcile, in order with its events", async () => {
    let running = 0;
    let overlapped = false;
    const release = deferred();
    const { controller, widgets, gadgets, reconciled } = setup({
      reconcile: async (request) => {
        running++;
        if (running > 1) overlapped = true;
        if (request.action === ReconcileAction.Created) await release.promise;
        running--;
      },
    });
    controller.owns(gadgets, { primary: widgetSchema });
    const stop = runUntilStopped(controller);
    widgets.add(widget('a', { rv: '1' }));
    await waitFor(() => reconciled.length === 1);
    gadgets.add(gadget('g1', { owners: [ownedBy('a')] }));
    widgets.delete(widget('a', { rv: '1' }));
    await settle();
    assert.deepEqual(names(reconciled), ['Created a@1'], 'the resync waits for the running reconcile of its primary');
    release.resolve();
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Created a@1', 'Resynced a@1', 'Deleted a@1'], "after the primary's running event, before its later delete");
    assert.equal(overlapped, false);
    await stop();
  });

  test('coalescing: resyncs queued for a busy primary merge into one, into a queued update of it, and a primary update merges into a queued resync', async () => {
    const hold = { next: deferred() };
    let holding = true;
    const { controller, widgets, gadgets, reconciled, watched } = setup({
      reconcile: async () => {
        if (holding) await hold.next.promise;
      },
    });
    controller.owns(gadgets, { primary: widgetSchema });
    const stop = runUntilStopped(controller);
    widgets.add(widget('a', { rv: '1' }));
    await waitFor(() => reconciled.length === 1);
    for (let i = 1; i <= 5; i++) gadgets.add(gadget(`g${i}`, { owners: [ownedBy('a')] }));
    holding = false;
    hold.next.resolve();
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Created a@1', 'Resynced a@1'], 'five child events while busy: one resync');

    // A queued update of the primary absorbs a resync; a primary update merges into a queued resync and reaches watchers.
    reconciled.length = 0;
    watched.length = 0;
    holding = true;
    hold.next = deferred();
    widgets.update(widget('a', { rv: '1' }), widget('a', { rv: '2' }));
    await waitFor(() => reconciled.length === 1);
    gadgets.add(gadget('g6', { owners: [ownedBy('a')] }));
    widgets.update(widget('a', { rv: '2' }), widget('a', { rv: '3' }));
    gadgets.add(gadget('g7', { owners: [ownedBy('a')] }));
    holding = false;
    hold.next.resolve();
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Updated a@2', 'Updated a@3'], 'the resync read a@2; the update to a@3 made it an update');
    assert.deepEqual(watched, ['update a@1->2', 'update a@2->3'], 'watchers get the update with the old they were last handed');

    const coalesced = await metricValues(controller, 'controller_coalesced_events_total');
    assert.deepEqual(
      coalesced.map((v) => [v.labels['kind'], v.labels['event_type'], v.value]).sort(),
      [
        ['Gadget', 'CREATE', 5],
        ['Widget', 'UPDATE', 1],
      ],
      'four resyncs merged in the first round, g7 into the update in the second; the update to a@3 merged into the resync of g6',
    );
    await stop();
  });

  test("a primary update merged into a resync that read the newer object first hands watchers the old they were last handed, and reconcilers an update", async () => {
    const hold = deferred();
    const clock = new VirtualClock();
    const controller = new InformerController({ clock, logger: noopLogger, errorHandler: () => undefined });
    const widgets = new FakeInformer(widgetSchema);
    const gadgets = new FakeInformer(gadgetSchema);
    // Another handler of the Widget informer, called before the controller's: between the cache change and
    // the controller's own handler, it causes a Gadget event (as a handler sharing the informer can).
    let touchGadget = false;
    widgets.addEventHandler({
      add: async () => {},
      update: async () => {
        if (touchGadget) gadgets.add(gadget('g1', { owners: [ownedBy('a')] }));
      },
      delete: async () => {},
    });
    const reconciled: Call[] = [];
    const watched: string[] = [];
    controller.addInformer(widgets, widgetSchema);
    controller.addWatcher({ add: async () => {}, update: async (_ctx, old, o) => void watched.push(`${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`), delete: async () => {} }, widgetSchema);
    controller.addReconciler(
      {
        reconcile: async (_ctx, r) => {
          reconciled.push({ action: ReconcileAction[r.action], name: r.object.metadata.name, rv: r.object.metadata.resourceVersion ?? '' });
          if (r.object.metadata.resourceVersion === '2') await hold.promise;
          return {};
        },
      },
      widgetSchema,
    );
    controller.owns(gadgets, { primary: widgetSchema });
    const stop = runUntilStopped(controller);
    widgets.add(widget('a', { rv: '1' }));
    await controller.whenIdle();
    widgets.update(widget('a', { rv: '1' }), widget('a', { rv: '2' }));
    await waitFor(() => reconciled.length === 2);
    touchGadget = true;
    widgets.update(widget('a', { rv: '2' }), widget('a', { rv: '3' }));
    hold.resolve();
    await controller.whenIdle();
    assert.deepEqual(watched, ['1->2', '2->3'], 'the resync read a@3 before the update 2->3 was queued; merged, watchers still get 2->3');
    assert.deepEqual(names(reconciled), ['Created a@1', 'Updated a@2', 'Updated a@3']);
    await stop();
  });

  test('predicates filter the secondary events before mapping, and are counted under the secondary key', async () => {
    const { controller, widgets, gadgets, reconciled } = setup();
    controller.owns(gadgets, { primary: widgetSchema, predicates: [generationChanged] });
    const stop = runUntilStopped(controller);
    widgets.add(widget('a'));
    await controller.whenIdle();
    reconciled.length = 0;
    const g = gadget('g1', { owners: [ownedBy('a')] });
    gadgets.update(g, { ...g, metadata: { ...g.metadata, resourceVersion: '2' }, status: { ready: true } });
    await controller.whenIdle();
    assert.deepEqual(reconciled, [], 'a status change of the child (same generation) is filtered');
    gadgets.update(g, { ...g, metadata: { ...g.metadata, resourceVersion: '3', generation: 2 } });
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Resynced a@1']);
    const filtered = await metricValues(controller, 'controller_predicate_filtered_events_total');
    assert.deepEqual(
      filtered.map((v) => [v.labels['controller'], v.labels['event'], v.value]),
      [[GADGETS, 'update', 1]],
    );
    await stop();
  });

  test('the sync gate waits for every secondary informer: no handler runs before it has synced', async () => {
    const { clock, controller, widgets, reconciled } = setup();
    const slow = new SlowSyncInformer(gadgetSchema);
    controller.owns(slow, { primary: widgetSchema });
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    widgets.add(widget('a'));
    slow.add(gadget('g1', { owners: [ownedBy('a')] }));
    await clock.advance(60_000);
    assert.deepEqual(reconciled, [], 'a reconcile ran before the secondary cache was filled');
    assert.equal(controller.hasSynced(), false);
    assert.equal(slow.runs, 1, 'the controller runs the secondary informer');
    slow.markSynced();
    await waitFor(() => reconciled.length === 1);
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Created a@1'], 'the resync added nothing to the queued create');
    assert.equal(controller.hasSynced(), true);
    await stop();
  });

  test('OpinionatedReconciler sees a resync: it adds its missing finalizer without delegating, delegates Resynced once it is there, and its deletion rules are unchanged', async () => {
    const client = new FakePatchClient();
    const clock = new VirtualClock();
    const controller = new InformerController({ clock, logger: noopLogger, errorHandler: () => undefined });
    const widgets = new FakeInformer(widgetSchema);
    // In the cache before the controller listens: the Widget has had no event of its own, and lacks our finalizer.
    const bare = client.put(widget('a'));
    widgets.add(bare);
    const gadgets = new FakeInformer(gadgetSchema);
    const seen: string[] = [];
    const opinionated = newOpinionatedReconciler(client, F);
    opinionated.wrap({ reconcile: async (_ctx, req) => (seen.push(`${ReconcileAction[req.action]} ${req.object.metadata.name}`), {}) });
    controller.addInformer(widgets, widgetSchema);
    controller.addReconciler(opinionated, widgetSchema);
    controller.owns(gadgets, { primary: widgetSchema });
    const stop = runUntilStopped(controller);

    gadgets.add(gadget('g1', { owners: [ownedBy('a')] }));
    await controller.whenIdle();
    assert.deepEqual(seen, [], 'rule 3: a resync of an object without our finalizer adds it and delegates nothing');
    assert.deepEqual(client.objects.get('default/a')?.metadata.finalizers, [F]);

    const withFinalizer = structuredClone(client.objects.get('default/a')!);
    widgets.update(bare, withFinalizer);
    await controller.whenIdle();
    assert.deepEqual(seen, ['Updated a'], 'the echo of the finalizer add, an event of the Widget itself');
    seen.length = 0;
    gadgets.add(gadget('g2', { owners: [ownedBy('a')] }));
    await controller.whenIdle();
    assert.deepEqual(seen, ['Resynced a'], 'with our finalizer, the resync is delegated as Resynced');

    // Being deleted: a resync of the deleting Widget delegates Deleted, then removes our finalizer; the
    // Widget's own update and a later resync (the cache still shows our finalizer) do not delegate it again.
    seen.length = 0;
    client.edit({ namespace: 'default', name: 'a' }, (o) => (o.metadata.deletionTimestamp = '2024-01-01T00:00:00Z'));
    const deleting = structuredClone(client.objects.get('default/a')!);
    widgets.update(withFinalizer, deleting);
    await controller.whenIdle();
    assert.deepEqual(seen, ['Deleted a'], 'rule 0a: delegated as Deleted');
    assert.equal(client.objects.has('default/a'), false, 'our finalizer was removed, so the object is gone');
    gadgets.delete(gadget('g2', { owners: [ownedBy('a')] }));
    await controller.whenIdle();
    assert.deepEqual(seen, ['Deleted a'], 'a resync of the deleting Widget still in the cache is not delegated again');
    widgets.delete(deleting);
    await controller.whenIdle();
    assert.deepEqual(seen, ['Deleted a'], 'rule 4: the final Deleted is skipped once handled');
    await stop();
  });

  test('one informer added as a primary and as a secondary (of two primaries) runs once', async () => {
    const { clock, controller, gadgets, widgets, reconciled } = setup();
    controller.addInformer(gadgets, gadgetSchema);
    controller.addReconciler({ reconcile: async (_ctx, r) => (reconciled.push({ action: ReconcileAction[r.action], name: r.object.metadata.name, rv: 'gadget' }), {}) }, gadgetSchema);
    controller.owns(gadgets, { primary: widgetSchema });
    controller.watches(gadgets, { primary: gadgetSchema, map: () => [] });
    assert.throws(() => controller.owns(gadgets, { primary: widgetSchema }), (e) => e === ErrInformerAlreadyAdded);
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    assert.equal(gadgets.runs, 1);
    widgets.add(widget('a'));
    await controller.whenIdle();
    gadgets.add(gadget('g1', { owners: [ownedBy('a')] }));
    await controller.whenIdle();
    assert.deepEqual(names(reconciled), ['Created a@1', 'Created g1@gadget', 'Resynced a@1']);
    await stop();
  });

  test('argument checks, and run() warns about a primary key with no informer or no reconciler', async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...noopLogger, warn: (message: string, _attributes?: LogAttributes) => void warnings.push(message) };
    const controller = new InformerController({ logger, clock: new VirtualClock() });
    const gadgets = new FakeInformer(gadgetSchema);
    assert.throws(() => controller.owns(undefined as never, { primary: 'x' }), isInvalidArgumentError);
    assert.throws(() => controller.owns(gadgets, {} as never), /needs options.primary/);
    assert.throws(() => controller.watches(gadgets, { primary: 'x' } as never), /needs options.map/);
    controller.addInformer(new FakeInformer(widgetSchema), 'widgets');
    controller.addWatcher({ add: async () => {}, update: async () => {}, delete: async () => {} }, 'widgets');
    controller.owns(gadgets, { primary: 'widgets' });
    controller.watches(new FakeInformer(gadgetSchema), { primary: 'typo', map: () => [] });
    const stop = runUntilStopped(controller);
    await stop();
    assert.deepEqual(warnings, [
      'owns("Gadget.test.kubeloop.dev") for primary "widgets" reconciles nothing: the primary key has no reconciler',
      'watches("Gadget.test.kubeloop.dev") for primary "typo" reconciles nothing: no informer is registered under the primary key, so no primary is ever in a cache',
    ]);
  });
});

describe('metrics and spans of a secondary event', () => {
  const original = getTracer();
  before(() => context.setGlobalContextManager(new TestContextManager()));
  after(() => {
    setTracer(original);
    context.disable();
  });

  test("the resync is counted and timed under the secondary's kind and event; its span names the trigger", async () => {
    const tracer = new RecordingTracer();
    setTracer(tracer);
    try {
      const { controller, widgets, gadgets } = setup();
      controller.owns(gadgets, { primary: widgetSchema });
      const stop = runUntilStopped(controller);
      widgets.add(widget('a'));
      await controller.whenIdle();
      gadgets.update(gadget('g1', { owners: [ownedBy('a')] }), gadget('g1', { owners: [ownedBy('a')], rv: '2' }));
      await controller.whenIdle();
      await stop();
      const events = await metricValues(controller, 'informer_events_total');
      assert.deepEqual(
        events.map((v) => [v.labels['kind'], v.labels['event_type'], v.value]).sort(),
        [
          ['Gadget', 'UPDATE', 1],
          ['Widget', 'CREATE', 1],
        ],
      );
      const reconciles = await metricValues(controller, 'reconciler_process_duration_seconds');
      assert.deepEqual(
        reconciles.filter((v) => v.sample === 'reconciler_process_duration_seconds_count').map((v) => [v.labels['kind'], v.labels['event_type'], v.value]).sort(),
        [
          ['Gadget', 'UPDATE', 1],
          ['Widget', 'CREATE', 1],
        ],
        "the Widget's reconcile asked for by the Gadget update is timed under kind Gadget",
      );
      const spans = tracer.spans.filter((s) => s.name === 'controller-event-update');
      assert.equal(spans.length, 1);
      assert.deepEqual(
        [spans[0]!.attributes['name'], spans[0]!.attributes['kind.name'], spans[0]!.attributes['trigger.kind'], spans[0]!.attributes['trigger.event'], spans[0]!.attributes['trigger.namespace'], spans[0]!.attributes['trigger.name']],
        ['a', 'Widget', GADGETS, 'UPDATE', 'default', 'g1'],
      );
      assert.equal(tracer.spans.filter((s) => s.name === 'controller-event-reconcile' && s.parent === spans[0]).length, 1);
    } finally {
      setTracer(original);
    }
  });
});
