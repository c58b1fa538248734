import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import { logKey } from '../storage/object-store.js';
import { WriteAheadLog } from '../persistence/index.js';
import { call, waitFor, widgetCrd, widgetsPath } from '../testing/test-client.js';
import { serverForSuite } from '../suite-server.test-helper.js';
import { tempDirsForSuite } from '../temp-dirs.test-helper.js';
import type { RawWatch, TestResponse } from '../testing/test-client.js';

const configMaps = (namespace = 'default'): string => `/api/v1/namespaces/${namespace}/configmaps`;
const secrets = (namespace = 'default'): string => `/api/v1/namespaces/${namespace}/secrets`;

interface Owner {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
  controller?: boolean;
}

/** The owner reference to a created object. */
function refTo(created: TestResponse, extra: { blockOwnerDeletion?: boolean; controller?: boolean } = {}): Owner {
  const obj = created.body as { apiVersion: string; kind: string; metadata: { name: string; uid: string } };
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, uid: obj.metadata.uid, ...extra };
}

describe('garbage collection by ownerReferences', () => {
  const suite = serverForSuite({ widgetCrd: true });
  const { req } = suite;
  const watch = (path: string): Promise<RawWatch> => suite.watch(path).ready();
  const widget = async (name: string, namespace = 'default'): Promise<TestResponse> => {
    const res = await req('POST', widgetsPath(namespace), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { replicas: 1 } });
    assert.equal(res.status, 201, res.text);
    return res;
  };
  const configMap = async (name: string, ownerReferences: Owner[], extra: { finalizers?: string[]; namespace?: string } = {}): Promise<TestResponse> => {
    const res = await req('POST', configMaps(extra.namespace), { metadata: { name, ownerReferences, finalizers: extra.finalizers } });
    assert.equal(res.status, 201, res.text);
    return res;
  };
  const gone = (path: string, what: string): Promise<boolean> => waitFor(async () => (await req('GET', path)).status === 404, { message: `${what} is deleted` });
  const removeFinalizers = async (path: string): Promise<void> => {
    const res = await req('PATCH', path, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    assert.equal(res.status, 200, res.text);
  };
  /** Polls an object until its metadata satisfies `ok`; returns that answer. */
  const waitForState = async (path: string, ok: (meta: Record<string, unknown>) => boolean, message: string): Promise<TestResponse> => {
    let last: TestResponse | undefined;
    await waitFor(async () => {
      last = await req('GET', path);
      return last.status === 200 && ok(last.body.metadata);
    }, { message });
    return last as TestResponse;
  };
  /** Lets the collector run: it works one event-loop turn after a change, in order. */
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };

  test('a Background delete removes the owner at once, then its dependents and theirs, each seen DELETED by watches', async () => {
    const owner = await widget('bg-owner');
    const cm = await configMap('bg-cm', [refTo(owner)]);
    const secret = await req('POST', secrets(), { metadata: { name: 'bg-secret', ownerReferences: [refTo(cm)] } });
    assert.equal(secret.status, 201, secret.text);
    const rv = suite.server.resourceVersion();
    const cmWatch = await watch(`${configMaps()}?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name=bg-cm`);
    const secretWatch = await watch(`${secrets()}?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name=bg-secret`);

    const del = await req('DELETE', `${widgetsPath()}/bg-owner`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
    assert.equal(del.status, 200, del.text);
    assert.equal((await req('GET', `${widgetsPath()}/bg-owner`)).status, 404, 'the owner goes at once');

    await gone(`${configMaps()}/bg-cm`, 'the owned ConfigMap');
    await gone(`${secrets()}/bg-secret`, 'the Secret owned by the ConfigMap');
    const [cmEvent] = await cmWatch.waitForEvents(1);
    const [secretEvent] = await secretWatch.waitForEvents(1);
    assert.equal(cmEvent?.type, 'DELETED');
    assert.equal(cmEvent?.object.metadata.uid, cm.body.metadata.uid);
    assert.equal(secretEvent?.type, 'DELETED');
    assert.ok(Number(secretEvent?.object.metadata.resourceVersion) > Number(cmEvent?.object.metadata.resourceVersion), 'the cascade goes owner first');
  });

  test('a delete without a policy cascades as Background, and a deleted collection cascades too', async () => {
    const a = await widget('nopolicy-a');
    const b = await widget('nopolicy-b');
    await configMap('nopolicy-cm', [refTo(a)]);
    await configMap('collection-cm', [refTo(b)]);
    assert.equal((await req('DELETE', `${widgetsPath()}/nopolicy-a`)).status, 200);
    await gone(`${configMaps()}/nopolicy-cm`, 'the dependent of a delete without body');
    assert.equal((await req('DELETE', `${widgetsPath()}?fieldSelector=metadata.name=nopolicy-b`)).status, 200);
    await gone(`${configMaps()}/collection-cm`, 'the dependent of a collection delete');
  });

  test('an object with two owners loses the reference to the first one deleted and goes with the last', async () => {
    const first = await widget('multi-a');
    const second = await widget('multi-b');
    const cm = await configMap('multi-cm', [refTo(first), refTo(second)]);

    assert.equal((await req('DELETE', `${widgetsPath()}/multi-a`)).status, 200);
    const trimmed = await waitForState(`${configMaps()}/multi-cm`, (m) => (m.ownerReferences as unknown[] | undefined)?.length === 1, 'the reference to the deleted owner is removed');
    assert.deepEqual(trimmed.body.metadata.ownerReferences, [refTo(second)]);
    assert.equal(trimmed.body.metadata.uid, cm.body.metadata.uid, 'the same object, kept');
    assert.equal(trimmed.body.metadata.deletionTimestamp, undefined);

    assert.equal((await req('DELETE', `${widgetsPath()}/multi-b`)).status, 200);
    await gone(`${configMaps()}/multi-cm`, 'the dependent of its last owner');
  });

  test('an Orphan delete holds the owner with the orphan finalizer, frees its dependents, then removes it', async () => {
    const owner = await widget('orphan-owner');
    const other = await widget('orphan-other');
    await configMap('orphan-cm', [refTo(owner)]);
    await configMap('orphan-cm2', [refTo(owner), refTo(other)]);

    const del = await req('DELETE', `${widgetsPath()}/orphan-owner`, { propagationPolicy: 'Orphan' });
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body.metadata.finalizers, ['orphan']);
    assert.ok(del.body.metadata.deletionTimestamp, 'the answer is the deleting owner');
    await gone(`${widgetsPath()}/orphan-owner`, 'the orphaning owner');

    const freed = await req('GET', `${configMaps()}/orphan-cm`);
    assert.equal(freed.status, 200, 'the dependent survives');
    assert.equal(freed.body.metadata.ownerReferences, undefined);
    const kept = await req('GET', `${configMaps()}/orphan-cm2`);
    assert.deepEqual(kept.body.metadata.ownerReferences, [refTo(other)]);
    await settle();
    assert.equal((await req('GET', `${configMaps()}/orphan-cm`)).status, 200, 'still there after the collector ran');
  });

  test('orphanDependents=true (deprecated) orphans like propagationPolicy Orphan', async () => {
    const owner = await widget('orphan-query');
    await configMap('orphan-query-cm', [refTo(owner)]);
    assert.equal((await req('DELETE', `${widgetsPath()}/orphan-query?orphanDependents=true`)).status, 200);
    await gone(`${widgetsPath()}/orphan-query`, 'the owner');
    const freed = await req('GET', `${configMaps()}/orphan-query-cm`);
    assert.equal(freed.status, 200);
    assert.equal(freed.body.metadata.ownerReferences, undefined);
  });

  test('a Foreground delete keeps the owner with foregroundDeletion until its blocking dependents are gone', async () => {
    const owner = await widget('fg-owner');
    const cm = await configMap('fg-cm', [refTo(owner, { blockOwnerDeletion: true, controller: true })], { finalizers: ['example.com/hold'] });
    const secret = await req('POST', secrets(), { metadata: { name: 'fg-secret', ownerReferences: [refTo(cm, { blockOwnerDeletion: true })] } });
    assert.equal(secret.status, 201, secret.text);

    const cmWatch = await watch(`${configMaps()}?watch=true&resourceVersion=${suite.server.resourceVersion()}&fieldSelector=metadata.name=fg-cm`);
    const del = await req('DELETE', `${widgetsPath()}/fg-owner`, { propagationPolicy: 'Foreground' });
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body.metadata.finalizers, ['foregroundDeletion']);
    assert.ok(del.body.metadata.deletionTimestamp);

    // The ConfigMap has a dependent of its own: it is deleted in the foreground too.
    await gone(`${secrets()}/fg-secret`, 'the dependent of the dependent');
    await waitFor(async () => !(await req('GET', `${configMaps()}/fg-cm`)).body.metadata.finalizers.includes('foregroundDeletion'), {
      message: 'the dependent finished its own foreground deletion',
    });
    await settle();
    const waiting = await req('GET', `${widgetsPath()}/fg-owner`);
    assert.equal(waiting.status, 200, 'the owner waits for its blocking dependent');
    assert.deepEqual(waiting.body.metadata.finalizers, ['foregroundDeletion']);

    await removeFinalizers(`${configMaps()}/fg-cm`);
    await gone(`${configMaps()}/fg-cm`, 'the dependent once its finalizer is removed');
    await gone(`${widgetsPath()}/fg-owner`, 'the owner once no blocking dependent is left');
    const states = (await cmWatch.waitForEvents(3)).map((e) => `${e.type} ${(e.object.metadata.finalizers ?? []).join(',')}`);
    assert.deepEqual(states, ['MODIFIED example.com/hold,foregroundDeletion', 'MODIFIED example.com/hold', 'DELETED example.com/hold']);
  });

  test('a Foreground delete does not wait for dependents without blockOwnerDeletion, but still deletes them', async () => {
    const owner = await widget('fg-nonblocking');
    await configMap('fg-nonblocking-cm', [refTo(owner)], { finalizers: ['example.com/hold'] });
    assert.equal((await req('DELETE', `${widgetsPath()}/fg-nonblocking`, { propagationPolicy: 'Foreground' })).status, 200);
    await gone(`${widgetsPath()}/fg-nonblocking`, 'the owner');
    const dependent = await waitForState(`${configMaps()}/fg-nonblocking-cm`, (m) => m.deletionTimestamp !== undefined, 'the non-blocking dependent is being deleted');
    assert.deepEqual(dependent.body.metadata.finalizers, ['example.com/hold']);
    await removeFinalizers(`${configMaps()}/fg-nonblocking-cm`);
    await gone(`${configMaps()}/fg-nonblocking-cm`, 'the dependent');
  });

  test('a collected dependent with a finalizer stays terminating until the finalizer is removed', async () => {
    const owner = await widget('fin-owner');
    await configMap('fin-cm', [refTo(owner)], { finalizers: ['example.com/hold'] });
    const w = await watch(`${configMaps()}?watch=true&resourceVersion=${suite.server.resourceVersion()}&fieldSelector=metadata.name=fin-cm`);
    assert.equal((await req('DELETE', `${widgetsPath()}/fin-owner`)).status, 200);

    const terminating = await waitForState(`${configMaps()}/fin-cm`, (m) => m.deletionTimestamp !== undefined, 'the dependent is terminating');
    assert.deepEqual(terminating.body.metadata.finalizers, ['example.com/hold']);
    await settle();
    assert.equal((await req('GET', `${configMaps()}/fin-cm`)).status, 200, 'held by its finalizer');

    await removeFinalizers(`${configMaps()}/fin-cm`);
    await gone(`${configMaps()}/fin-cm`, 'the dependent');
    const events = await w.waitForEvents(2);
    assert.deepEqual(
      events.map((e) => e.type),
      ['MODIFIED', 'DELETED'],
      'the collector starts the deletion, the finalizer removal ends it',
    );
  });

  test('an object whose owner does not exist, or is another object of that name, is collected; one with a live owner is not', async () => {
    const live = await widget('live-owner');
    await configMap('live-dependent', [refTo(live)]);
    await configMap('no-such-owner', [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'never-created', uid: '0b5d1f6e-0000-4000-8000-00000000dead' }]);
    await configMap('wrong-uid', [{ ...refTo(live), uid: '0b5d1f6e-0000-4000-8000-00000000beef' }]);
    await gone(`${configMaps()}/no-such-owner`, 'the dependent of a missing owner');
    await gone(`${configMaps()}/wrong-uid`, 'the dependent whose owner uid does not match');
    await settle();
    assert.equal((await req('GET', `${configMaps()}/live-dependent`)).status, 200);
  });

  test('a namespaced owner is looked up in the dependent\'s namespace; cluster-scoped owners anywhere', async () => {
    assert.equal((await req('POST', '/api/v1/namespaces', { metadata: { name: 'gc-other' } })).status, 201);
    const elsewhere = await widget('elsewhere', 'gc-other');
    const ns = await req('GET', '/api/v1/namespaces/gc-other');
    await configMap('cross-ns', [refTo(elsewhere)]);
    await configMap('ns-owned', [{ apiVersion: 'v1', kind: 'Namespace', name: 'gc-other', uid: ns.body.metadata.uid }]);
    await gone(`${configMaps()}/cross-ns`, 'the dependent of an owner in another namespace');
    await settle();
    assert.equal((await req('GET', `${configMaps()}/ns-owned`)).status, 200, 'a cluster-scoped owner is found from any namespace');
    assert.equal((await req('DELETE', '/api/v1/namespaces/gc-other')).status, 200);
    await gone(`${configMaps()}/ns-owned`, 'the dependent of the deleted namespace');
  });

  test('an unknown propagationPolicy, or one together with orphanDependents, is 422 and deletes nothing', async () => {
    const owner = await widget('bad-policy');
    const bad = await req('DELETE', `${widgetsPath()}/bad-policy`, { propagationPolicy: 'Sideways' });
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.body.reason, 'Invalid');
    assert.match(bad.body.message, /propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"/);
    const both = await req('DELETE', `${widgetsPath()}/bad-policy`, { propagationPolicy: 'Orphan', orphanDependents: true });
    assert.equal(both.status, 422, both.text);
    assert.equal((await req('GET', `${widgetsPath()}/bad-policy`)).body.metadata.uid, owner.body.metadata.uid);
  });

  test('owner references must name apiVersion, kind, name and uid, with at most one controller (422)', async () => {
    const missing = await req('POST', configMaps(), { metadata: { name: 'bad-ref', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x' }] } });
    assert.equal(missing.status, 422, missing.text);
    assert.match(missing.body.message, /metadata\.ownerReferences\.uid: Invalid value: "": must not be empty/);
    const a = { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: '1', controller: true };
    const twoControllers = await req('POST', configMaps(), { metadata: { name: 'bad-ref', ownerReferences: [a, { ...a, name: 'b', uid: '2' }] } });
    assert.equal(twoControllers.status, 422, twoControllers.text);
    assert.match(twoControllers.body.message, /Only one reference can have Controller set to true/);
  });

  test('dependents of the objects of a deleted CRD are collected', async () => {
    const crd = widgetCrd() as { metadata: { name: string }; spec: { group: string; names: Record<string, unknown> } };
    crd.metadata.name = 'gadgets.example.com';
    crd.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' };
    assert.equal((await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    const gadget = await req('POST', '/apis/example.com/v1/namespaces/default/gadgets', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } });
    assert.equal(gadget.status, 201, gadget.text);
    await configMap('gadget-cm', [refTo(gadget)]);
    assert.equal((await req('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com')).status, 200);
    await gone(`${configMaps()}/gadget-cm`, 'the dependent of a custom resource whose CRD was deleted');
  });
});

describe('garbage collection across a restart', () => {
  const tempDir = tempDirsForSuite('kubeloop-gc-');

  test('a dependent whose owner is gone when the log is replayed is collected at start, durably', async () => {
    const dataDir = await tempDir();
    const first = await startApiServer({ dataDir });
    const owner = await call(first.url, 'POST', configMaps(), { metadata: { name: 'replayed-owner' } });
    const dependent = await call(first.url, 'POST', configMaps(), { metadata: { name: 'replayed-dependent', ownerReferences: [refTo(owner)] } });
    assert.equal(dependent.status, 201, dependent.text);
    const lastRv = Number(first.resourceVersion());
    await first.stop();

    // The owner's removal is in the log, but no collector ran after it (a crash right after the write).
    const opened = await WriteAheadLog.open(dataDir, { fsync: 'always' });
    await opened.log.append({ rv: lastRv + 1, op: 'delete', key: logKey('/configmaps', 'default/replayed-owner') });
    await opened.log.close();

    const second = await startApiServer({ dataDir });
    try {
      await waitFor(async () => (await call(second.url, 'GET', `${configMaps()}/replayed-dependent`)).status === 404, { message: 'collected after the replay' });
    } finally {
      await second.stop();
    }
    const third = await startApiServer({ dataDir });
    try {
      assert.equal((await call(third.url, 'GET', `${configMaps()}/replayed-dependent`)).status, 404, 'the collection was a logged write');
      assert.ok(Number(third.resourceVersion()) > lastRv + 1);
    } finally {
      await third.stop();
    }
  });
});
