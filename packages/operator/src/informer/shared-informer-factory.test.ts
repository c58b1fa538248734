import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMapKind, isSelectorError } from '@kubeloop/resource';
import { isInvalidArgumentError } from '../errors.js';
import { InformerController } from '../controller/informer-controller.js';
import { noopLogger } from '../observability/logger.js';
import { SharedInformerFactory } from './shared-informer-factory.js';
import type { SharedInformerScope } from './shared-informer-factory.js';
import type { InformerErrorHandler } from './kubernetes-based-informer.js';
import type { ResourceWatcher } from '../handlers/resource-watcher.js';
import { FakeInformer, deferred, waitFor, widget } from '../testing/fake-informer.js';

/** A factory over FakeInformers, recording each one created with its scope. */
function fakeFactory(): { factory: SharedInformerFactory; created: { informer: FakeInformer; scope: Required<SharedInformerScope> }[] } {
  const created: { informer: FakeInformer; scope: Required<SharedInformerScope> }[] = [];
  const factory = new SharedInformerFactory({
    newInformer: (_kind, scope) => {
      const informer = new FakeInformer();
      created.push({ informer, scope });
      return informer;
    },
  });
  return { factory, created };
}

/** A handler that records `add:name`, `update:name`, `delete:name`. */
function recorder(log: string[]): ResourceWatcher {
  return {
    add: async (_ctx, o) => void log.push(`add:${o.metadata.name}`),
    update: async (_ctx, _old, o) => void log.push(`update:${o.metadata.name}`),
    delete: async (_ctx, o) => void log.push(`delete:${o.metadata.name}`),
  };
}

function running(handle: { run(signal: AbortSignal): Promise<void> }): { stop: () => Promise<void> } {
  const abort = new AbortController();
  const done = handle.run(abort.signal);
  return {
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}

describe('SharedInformerFactory', () => {
  test('handles of one kind and scope share one informer, started once; another scope gets its own', async () => {
    const { factory, created } = fakeFactory();
    const a = factory.informerFor(ConfigMapKind, { namespace: 'x' });
    const b = factory.informerFor(ConfigMapKind, { namespace: 'x' });
    const c = factory.informerFor(ConfigMapKind, { namespace: 'x', labelSelector: 'app=web' });
    assert.equal(created.length, 2);
    assert.deepEqual(created[1]!.scope, { namespace: 'x', labelSelector: 'app=web', fieldSelector: '', metadataOnly: false });
    const runs = [running(a), running(b), running(c)];
    await a.waitForSync();
    await b.waitForSync();
    assert.equal(created[0]!.informer.runs, 1);
    assert.equal(a.store, b.store);
    for (const r of runs) await r.stop();
  });

  test('informerFor throws a SelectorError for a malformed selector of its scope, before any informer is made', () => {
    let made = 0;
    const factory = new SharedInformerFactory({ newInformer: () => (made++, new FakeInformer()) });
    assert.throws(() => factory.informerFor(ConfigMapKind, { labelSelector: 'a=b,=c' }), (error: unknown) => isSelectorError(error) && /labelSelector of the ConfigMap informer/.test(error.message));
    assert.equal(made, 0);
    assert.equal(factory.size, 0);
  });

  test('a late handle first gets the cache as adds, then the events that follow, in order, like the others', async () => {
    const { factory, created } = fakeFactory();
    const first: string[] = [];
    const late: string[] = [];
    const a = factory.informerFor(ConfigMapKind);
    a.addEventHandler(recorder(first));
    const ra = running(a);
    await a.waitForSync();
    const shared = created[0]!.informer;
    shared.add(widget('one'));
    shared.add(widget('two'));
    await waitFor(() => first.length === 2);
    const b = factory.informerFor(ConfigMapKind);
    b.addEventHandler(recorder(late));
    const rb = running(b);
    await b.waitForSync();
    assert.equal(b.hasSynced(), true);
    shared.update(widget('one'), widget('one', { rv: '9' }));
    shared.delete(widget('two'));
    await waitFor(() => late.length === 4 && first.length === 4);
    assert.deepEqual(late, ['add:one', 'add:two', 'update:one', 'delete:two']);
    assert.deepEqual(first, ['add:one', 'add:two', 'update:one', 'delete:two']);
    await ra.stop();
    await rb.stop();
  });

  test('a handle joining while events wait in the fan-out replays the cache as of its join, then gets each later event once', async () => {
    const { factory, created } = fakeFactory();
    const gate = deferred();
    const first: string[] = [];
    const late: string[] = [];
    const a = factory.informerFor(ConfigMapKind);
    a.addEventHandler({
      ...recorder(first),
      add: async (_ctx, o) => {
        first.push(`add:${o.metadata.name}`);
        if (o.metadata.name === 'one') await gate.promise;
      },
    });
    const ra = running(a);
    await a.waitForSync();
    const shared = created[0]!.informer;
    shared.add(widget('one'));
    const b = factory.informerFor(ConfigMapKind);
    b.addEventHandler(recorder(late));
    const rb = running(b);
    // b's join is queued behind the blocked delivery of 'one'; 'two' comes after the join.
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    shared.add(widget('two'));
    gate.resolve();
    await b.waitForSync();
    await waitFor(() => late.length >= 2 && first.length === 2);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(late, ['add:one', 'add:two']);
    await ra.stop();
    await rb.stop();
  });

  test('the last handle to stop stops the informer; a stopped handle gets nothing more; a later run starts a fresh informer', async () => {
    const { factory, created } = fakeFactory();
    const gone: string[] = [];
    const staying: string[] = [];
    const a = factory.informerFor(ConfigMapKind);
    const b = factory.informerFor(ConfigMapKind);
    a.addEventHandler(recorder(gone));
    b.addEventHandler(recorder(staying));
    const ra = running(a);
    const rb = running(b);
    await a.waitForSync();
    await b.waitForSync();
    const shared = created[0]!.informer;
    await ra.stop();
    assert.equal(factory.size, 1, 'still used by b');
    shared.add(widget('after'));
    await waitFor(() => staying.length === 1);
    assert.deepEqual(gone, []);
    await rb.stop();
    assert.equal(created.length, 1);
    assert.equal(factory.size, 0, 'the last user stopped it');
    const again = running(a);
    await a.waitForSync();
    assert.equal(created.length, 2);
    assert.equal(created[1]!.informer.runs, 1);
    await again.stop();
  });

  test('the shared informer’s errors reach the errorHandler of every running handle, from the start of its run', async () => {
    const informers: (FakeInformer & { errorHandler: InformerErrorHandler })[] = [];
    const factory = new SharedInformerFactory({
      newInformer: () => {
        const informer = Object.assign(new FakeInformer(), { errorHandler: (() => undefined) });
        informers.push(informer);
        return informer;
      },
    });
    const seen: string[] = [];
    const a = factory.informerFor(ConfigMapKind);
    const b = factory.informerFor(ConfigMapKind);
    a.errorHandler = (_context, err) => seen.push(`a:${String(err)}`);
    b.errorHandler = (_context, err) => seen.push(`b:${String(err)}`);
    const ra = running(a);
    const rb = running(b);
    await a.waitForSync();
    await b.waitForSync();
    informers[0]!.errorHandler({ phase: 'watch', kind: 'ConfigMap' }, new Error('watch failed'));
    assert.deepEqual(seen, ['a:Error: watch failed', 'b:Error: watch failed']);
    await ra.stop();
    informers[0]!.errorHandler({ phase: 'list', kind: 'ConfigMap' }, new Error('again'));
    assert.deepEqual(seen.slice(2), ['b:Error: again']);
    await rb.stop();
  });

  test('a handle runs once at a time, and a factory needs a transport or newInformer', async () => {
    const { factory } = fakeFactory();
    const a = factory.informerFor(ConfigMapKind);
    const r = running(a);
    await assert.rejects(a.run(new AbortController().signal), (err: unknown) => isInvalidArgumentError(err));
    await r.stop();
    assert.throws(() => new SharedInformerFactory({}), (err: unknown) => isInvalidArgumentError(err) && /transport or newInformer/.test(String(err)));
  });

  test('two InformerControllers over one shared informer each reconcile every object', async () => {
    const { factory, created } = fakeFactory();
    const seen = [new Set<string>(), new Set<string>()];
    const stop = new AbortController();
    const runs = seen.map((names) => {
      const controller = new InformerController({ logger: noopLogger });
      controller.addInformer(factory.informerFor(ConfigMapKind), 'ConfigMap');
      controller.addReconciler(
        {
          reconcile: async (_ctx, req) => {
            names.add((req.object).metadata.name);
            return {};
          },
        },
        'ConfigMap',
      );
      return controller.run(stop.signal);
    });
    await waitFor(() => created[0]?.informer.hasSynced() === true);
    await new Promise((r) => setImmediate(r));
    created[0]!.informer.add(widget('p'));
    created[0]!.informer.add(widget('q'));
    await waitFor(() => seen.every((s) => s.size === 2));
    assert.equal(created.length, 1);
    assert.equal(created[0]!.informer.runs, 1);
    stop.abort();
    await Promise.all(runs);
    assert.equal(factory.size, 0);
  });
});
