import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { ReconcileAction } from './actions.js';
import { CannotCastError, isCannotCastError } from '../errors.js';
import { testContext, widget, widgetKind } from '../testing/informer-fakes.test-helper.js';
import { TypedReconciler } from './typed-reconciler.js';

interface Widget extends KubeObject<{ size: number }> {
  kind: 'Widget';
}

const gadget: KubeObject = { apiVersion: 'other.io/v2', kind: 'Gadget', metadata: { name: 'g', namespace: 'ns' } };

describe('TypedReconciler', () => {
  test('passes a request whose object matches the kind, with its action and state', async () => {
    const seen: unknown[] = [];
    const r = new TypedReconciler<Widget>({
      kind: widgetKind,
      reconcileFunc: async (_ctx, req) => {
        seen.push([req.action, req.object.metadata.name, req.state]);
        return { requeueAfter: 1 };
      },
    });
    const result = await r.reconcile(testContext, { action: ReconcileAction.Updated, object: widget('a', '1'), state: { k: 1 } });
    assert.deepEqual(result, { requeueAfter: 1 });
    assert.deepEqual(seen, [[ReconcileAction.Updated, 'a', { k: 1 }]]);
  });

  test('rejects an object of another type with a CannotCastError naming it', async () => {
    const r = new TypedReconciler<Widget>({ kind: widgetKind, reconcileFunc: async () => ({}) });
    const err = await r.reconcile(testContext, { action: ReconcileAction.Created, object: gadget }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof CannotCastError && isCannotCastError(err));
    assert.equal(err.message, 'cannot cast other.io:Gadget (ns/g) into type');
    assert.deepEqual([err.group, err.kind, err.namespace, err.objectName, err.name], ['other.io', 'Gadget', 'ns', 'g', 'CannotCastError']);
  });

  test('uses a type guard when one is given', async () => {
    const isBig = (o: KubeObject): o is Widget => (o.spec as { size?: number } | undefined)?.size === 10;
    const r = new TypedReconciler<Widget>({ is: isBig, reconcileFunc: async () => ({ state: { ok: true } }) });
    const big = { ...widget('a', '1'), spec: { size: 10 } };
    assert.deepEqual(await r.reconcile(testContext, { action: ReconcileAction.Created, object: big }), { state: { ok: true } });
    await assert.rejects(r.reconcile(testContext, { action: ReconcileAction.Created, object: widget('b', '1') }), CannotCastError);
  });

  test('without reconcileFunc every request gets an empty result, even of another type', async () => {
    const r = new TypedReconciler<Widget>({ kind: widgetKind });
    assert.deepEqual(await r.reconcile(testContext, { action: ReconcileAction.Created, object: gadget }), {});
  });

  test('needs a guard or a kind', () => {
    assert.throws(() => new TypedReconciler({}), /type guard/);
  });
});
