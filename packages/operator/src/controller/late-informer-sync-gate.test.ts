import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Schema } from '@kubeloop/resource';
import { VirtualClock } from '../clock.js';
import { noopLogger } from '../observability/logger.js';
import { FakeInformer, SlowSyncInformer, waitFor, widget, widgetSchema } from '../testing/fake-informer.js';
import { InformerController } from './informer-controller.js';

const lateSchema: Schema = { ...widgetSchema, kind: 'Gadget', plural: 'gadgets' };

/** A watcher that logs `kind:action:name@rv`. */
function logWatcher(kind: string, log: string[]) {
  const rv = (o: KubeObject): string => `${o.metadata.name}@${o.metadata.resourceVersion ?? ''}`;
  return {
    add: async (_ctx: unknown, o: KubeObject) => void log.push(`${kind}:add:${rv(o)}`),
    update: async (_ctx: unknown, _old: KubeObject, o: KubeObject) => void log.push(`${kind}:update:${rv(o)}`),
    delete: async (_ctx: unknown, o: KubeObject) => void log.push(`${kind}:delete:${rv(o)}`),
  };
}

// operator README, "Sync gate": "Difference from controller-runtime: an informer added after the gate
// opened does not close it again (controller-runtime's `Watch` after start blocks until that source
// syncs); its events are handled as they come."
test('an informer added after the gate opened does not close it again: every informer\'s events keep flowing while it has not synced', async () => {
  const clock = new VirtualClock();
  const primary = new FakeInformer();
  const log: string[] = [];
  const controller = new InformerController({ clock, logger: noopLogger, errorHandler: () => undefined, cacheSyncTimeoutMs: 1_000 });
  controller.addInformer(primary, 'Widget');
  controller.addWatcher(logWatcher('Widget', log), 'Widget');
  controller.addWatcher(logWatcher('Gadget', log), 'Gadget');
  const stop = new AbortController();
  const running = controller.run(stop.signal);
  await waitFor(() => controller.hasSynced());

  const late = new SlowSyncInformer(lateSchema);
  controller.addInformer(late, 'Gadget');
  assert.equal(late.runs, 1, 'the late informer is started at once');
  // Longer than cacheSyncTimeoutMs: the late informer is not waited for at all.
  await clock.advance(5_000);
  assert.equal(late.hasSynced(), false);
  assert.equal(controller.hasSynced(), true, 'the gate stays open (readiness stays green)');

  primary.add(widget('a', { rv: '1' }));
  await waitFor(() => log.length === 1);
  late.add(widget('g', { rv: '1' })); // from its initial list, before it has synced
  await waitFor(() => log.length === 2);
  primary.update(widget('a', { rv: '1' }), widget('a', { rv: '2' }));
  await controller.whenIdle();
  assert.deepEqual(log, ['Widget:add:a@1', 'Gadget:add:g@1', 'Widget:update:a@2']);
  assert.equal(controller.hasSynced(), true);

  late.markSynced();
  late.update(widget('g', { rv: '1' }), widget('g', { rv: '2' }));
  await controller.whenIdle();
  assert.deepEqual(log.slice(3), ['Gadget:update:g@2']);
  stop.abort();
  await running;
});
