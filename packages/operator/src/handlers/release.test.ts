/**
 * `release` (the object left this replica's shard) through the handler building blocks: passed on
 * to the user's function, and in the finalizer-based watcher and reconciler never the delete path
 * nor a finalizer write (the new owner runs the cleanup when the object is really deleted).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { noopLogger } from '../observability/logger.js';
import { widget, widgetSchema } from '../testing/fake-informer.js';
import type { PatchClient } from '../informer/list-watch-client.js';
import { DefaultFinalizerSupplier } from './finalizer.js';
import { OpinionatedWatcher } from './opinionated-watcher.js';
import { OpinionatedReconciler } from './opinionated-reconciler.js';
import { SimpleWatcher } from './simple-watcher.js';
import { SimpleReconciler } from './simple-reconciler.js';
import { TypedReconciler } from './typed-reconciler.js';
import type { HandlerContext } from './resource-watcher.js';

const ctx: HandlerContext = { signal: new AbortController().signal, logger: noopLogger };

/** A client that records every write: a release must make none. */
function recordingClient(writes: string[]): PatchClient {
  return {
    get: (id) => Promise.reject(new Error(`unexpected get ${id.name}`)),
    patch: (id) => {
      writes.push(`patch ${id.name}`);
      return Promise.reject(new Error('no write expected'));
    },
  };
}

/** A widget that carries our finalizer, as one an earlier owner handled. */
function guarded(name: string): KubeObject {
  const object = widget(name);
  object.metadata.uid = `uid-${name}`;
  object.metadata.finalizers = [DefaultFinalizerSupplier(widgetSchema)];
  return object;
}

test('OpinionatedWatcher.release calls the wrapped release only: no deleteFunc, no finalizer write', async () => {
  const calls: string[] = [];
  const writes: string[] = [];
  const watcher = new OpinionatedWatcher(widgetSchema, recordingClient(writes));
  watcher.wrap(
    new SimpleWatcher({
      addFunc: async (_c, o) => void calls.push(`add ${o.metadata.name}`),
      deleteFunc: async (_c, o) => void calls.push(`delete ${o.metadata.name}`),
      releaseFunc: async (_c, o) => void calls.push(`release ${o.metadata.name}`),
    }),
    false,
  );
  await watcher.release(ctx, guarded('a'));
  assert.deepEqual(calls, ['release a']);
  assert.deepEqual(writes, []);
});

test('OpinionatedReconciler.release passes to the wrapped reconciler: no Deleted, no finalizer write', async () => {
  const calls: string[] = [];
  const writes: string[] = [];
  const reconciler = new OpinionatedReconciler(recordingClient(writes), DefaultFinalizerSupplier(widgetSchema));
  reconciler.wrap(
    new SimpleReconciler({
      reconcileFunc: async (_c, request) => {
        calls.push(`reconcile ${request.action} ${request.object.metadata.name}`);
        return {};
      },
      releaseFunc: async (_c, o) => void calls.push(`release ${o.metadata.name}`),
    }),
  );
  await reconciler.release(ctx, guarded('a'));
  assert.deepEqual(calls, ['release a']);
  assert.deepEqual(writes, []);
});

test('TypedReconciler.release calls releaseFunc for objects of its type only', async () => {
  const calls: string[] = [];
  const typed = new TypedReconciler({ kind: widgetSchema, releaseFunc: async (_c, o) => void calls.push(`release ${o.metadata.name}`) });
  await typed.release(ctx, widget('a'));
  await typed.release(ctx, { ...widget('b'), kind: 'Other' });
  assert.deepEqual(calls, ['release a']);
});
