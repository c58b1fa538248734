/**
 * @kubernetes/client-node 1.4, unmodified, against the embedded API server: typed CRUD on a
 * built-in and on a custom resource, errors as ApiException with the HTTP code and a Status body,
 * and the informer (add, update, delete, relist after a 410).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  loadYaml,
  makeInformer,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { Informer, KubernetesObject, ObjectCache, V1ConfigMap, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer } from '@kubeloop/apiserver';
import { testCrd } from './support/crd.js';
import { waitFor } from './support/wait-for.js';

type Widget = KubernetesObject & { spec?: { replicas?: number; color?: string }; status?: { ready?: boolean } };

/** Runs `call`, which must fail with an ApiException; returns its code and decoded Status body. */
async function apiFailure(call: () => Promise<unknown>): Promise<{ code: number; status: Record<string, unknown> }> {
  try {
    await call();
  } catch (err) {
    assert.ok(err instanceof ApiException, `expected an ApiException, got ${String(err)}`);
    const body: unknown = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
    return { code: err.code, status: body as Record<string, unknown> };
  }
  assert.fail('the call succeeded but should have failed');
}

// client-node's typed model spells `enum` as `_enum` (its serializer would drop `enum`): loadYaml turns the
// manifest into that model, as a client-node user loads one.
const widgetCrd = loadYaml<V1CustomResourceDefinition>(
  JSON.stringify(
    testCrd({
      group: 'example.com',
      kind: 'Widget',
      spec: { replicas: { type: 'integer' }, color: { type: 'string', enum: ['red', 'blue'] } },
      specRequired: ['replicas'],
      status: { ready: { type: 'boolean' } },
    }),
  ),
);

describe('@kubernetes/client-node against the embedded API server', { timeout: 120_000 }, () => {
  let server: ApiServer;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;
  let extensions: ApiextensionsV1Api;
  let kc: KubeConfig;
  const informers: Informer<KubernetesObject>[] = [];
  let stopping = false;

  before(async () => {
    server = await startApiServer();
    kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
    custom = kc.makeApiClient(CustomObjectsApi);
    extensions = kc.makeApiClient(ApiextensionsV1Api);
  });

  after(async () => {
    stopping = true;
    await Promise.all(informers.map((i) => i.stop()));
    await server.stop();
  });

  describe('CoreV1Api', () => {
    const namespace = 'default';

    test('creates, reads, lists, replaces, patches and deletes a ConfigMap', async () => {
      const created = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'cm1', labels: { app: 'x' } }, data: { a: '1' } } });
      assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
      const rv1 = Number(created.metadata?.resourceVersion);
      assert.ok(rv1 > 0);

      const read = await core.readNamespacedConfigMap({ name: 'cm1', namespace });
      assert.deepEqual(read.data, { a: '1' });

      const list = await core.listNamespacedConfigMap({ namespace, labelSelector: 'app=x' });
      assert.deepEqual(list.items.map((i) => i.metadata?.name), ['cm1']);
      assert.ok(Number(list.metadata?.resourceVersion) >= rv1);

      const replaced = await core.replaceNamespacedConfigMap({ name: 'cm1', namespace, body: { ...read, data: { a: '2' } } });
      assert.ok(Number(replaced.metadata?.resourceVersion) > rv1);

      // client-node's default patch type is JSON patch.
      const jsonPatched = await core.patchNamespacedConfigMap({ name: 'cm1', namespace, body: [{ op: 'add', path: '/data/b', value: '3' }] });
      assert.deepEqual(jsonPatched.data, { a: '2', b: '3' });
      const mergePatched = await core.patchNamespacedConfigMap(
        { name: 'cm1', namespace, body: { data: { a: null, c: '4' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      assert.deepEqual(mergePatched.data, { b: '3', c: '4' });
      const strategic = await core.patchNamespacedConfigMap(
        { name: 'cm1', namespace, body: { metadata: { finalizers: ['example.com/a'] }, data: { d: '5' } } },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      );
      assert.deepEqual(strategic.data, { b: '3', c: '4', d: '5' });
      assert.deepEqual(strategic.metadata?.finalizers, ['example.com/a']);
      const unfinalized = await core.patchNamespacedConfigMap(
        { name: 'cm1', namespace, body: { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'] } } },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      );
      // The real server omits an emptied list rather than answering `finalizers: []`.
      assert.equal(unfinalized.metadata?.finalizers, undefined);
      assert.equal((await core.readNamespacedConfigMap({ name: 'cm1', namespace })).metadata?.finalizers, undefined);

      await core.deleteNamespacedConfigMap({ name: 'cm1', namespace });
      assert.equal((await apiFailure(() => core.readNamespacedConfigMap({ name: 'cm1', namespace }))).code, 404);
    });

    test('surfaces 404 NotFound as an ApiException with the Status body', async () => {
      const { code, status } = await apiFailure(() => core.readNamespacedConfigMap({ name: 'missing', namespace }));
      assert.equal(code, 404);
      assert.equal(status['kind'], 'Status');
      assert.equal(status['reason'], 'NotFound');
      assert.equal(status['message'], 'configmaps "missing" not found');
    });

    test('surfaces 409 AlreadyExists on a second create', async () => {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'dup' } } });
      const { code, status } = await apiFailure(() => core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'dup' } } }));
      assert.equal(code, 409);
      assert.equal(status['reason'], 'AlreadyExists');
      assert.equal(status['message'], 'configmaps "dup" already exists');
    });

    test('surfaces 409 Conflict on a replace with a stale resourceVersion', async () => {
      const first = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'occ' }, data: { v: '1' } } });
      await core.replaceNamespacedConfigMap({ name: 'occ', namespace, body: { ...first, data: { v: '2' } } });
      const { code, status } = await apiFailure(() => core.replaceNamespacedConfigMap({ name: 'occ', namespace, body: { ...first, data: { v: '3' } } }));
      assert.equal(code, 409);
      assert.equal(status['reason'], 'Conflict');
      assert.match(String(status['message']), /the object has been modified; please apply your changes to the latest version and try again/);
    });

    test('refuses a create in a namespace that does not exist with 404', async () => {
      const { code, status } = await apiFailure(() => core.createNamespacedConfigMap({ namespace: 'nowhere', body: { metadata: { name: 'x' } } }));
      assert.equal(code, 404);
      assert.equal(status['message'], 'namespaces "nowhere" not found');
    });
  });

  describe('CustomObjectsApi', () => {
    const ref = { group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' };

    before(async () => {
      await extensions.createCustomResourceDefinition({ body: widgetCrd });
      await waitFor(
        async () => {
          const crd = await extensions.readCustomResourceDefinition({ name: 'widgets.example.com' });
          return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
        },
        { timeoutMs: 10_000, what: 'the CRD to be Established' },
      );
    });

    test('creates, gets, lists, patches, replaces and deletes a custom object', async () => {
      const created = (await custom.createNamespacedCustomObject({
        ...ref,
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { replicas: 1, color: 'red' }, status: { ready: true } },
      })) as Widget;
      assert.equal(created.metadata?.generation, 1);
      assert.equal(created.status, undefined, 'create drops status when the status subresource is on');

      const got = (await custom.getNamespacedCustomObject({ ...ref, name: 'w1' })) as Widget;
      assert.deepEqual(got.spec, { replicas: 1, color: 'red' });

      const list = (await custom.listNamespacedCustomObject(ref)) as { items: Widget[] };
      assert.deepEqual(list.items.map((i) => [i.apiVersion, i.kind, i.metadata?.name]), [['example.com/v1', 'Widget', 'w1']]);

      const jsonPatched = (await custom.patchNamespacedCustomObject({ ...ref, name: 'w1', body: [{ op: 'replace', path: '/spec/replicas', value: 2 }] })) as Widget;
      assert.equal(jsonPatched.spec?.replicas, 2);
      assert.equal(jsonPatched.metadata?.generation, 2);

      const mergePatched = (await custom.patchNamespacedCustomObject(
        { ...ref, name: 'w1', body: { spec: { color: 'blue' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )) as Widget;
      assert.equal(mergePatched.spec?.color, 'blue');

      const withStatus = (await custom.patchNamespacedCustomObjectStatus(
        { ...ref, name: 'w1', body: { status: { ready: true } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )) as Widget;
      assert.deepEqual(withStatus.status, { ready: true });
      assert.equal(withStatus.metadata?.generation, 3, 'a status change does not bump generation');

      const replaced = (await custom.replaceNamespacedCustomObject({ ...ref, name: 'w1', body: { ...withStatus, spec: { replicas: 5 } } })) as Widget;
      assert.deepEqual(replaced.spec, { replicas: 5 });
      assert.deepEqual(replaced.status, { ready: true }, 'a main-resource replace keeps the status');

      await custom.deleteNamespacedCustomObject({ ...ref, name: 'w1' });
      assert.equal((await apiFailure(() => custom.getNamespacedCustomObject({ ...ref, name: 'w1' }))).code, 404);
    });

    test('surfaces 404 with the resource named, and 409 on a duplicate', async () => {
      const missing = await apiFailure(() => custom.getNamespacedCustomObject({ ...ref, name: 'nope' }));
      assert.equal(missing.code, 404);
      assert.equal(missing.status['message'], 'widgets.example.com "nope" not found');
      const body = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'twice' }, spec: { replicas: 1 } };
      await custom.createNamespacedCustomObject({ ...ref, body });
      const dup = await apiFailure(() => custom.createNamespacedCustomObject({ ...ref, body }));
      assert.equal(dup.code, 409);
      assert.equal(dup.status['reason'], 'AlreadyExists');
    });

    test('surfaces 422 Invalid with the failing fields as causes', async () => {
      const invalid = await apiFailure(() =>
        custom.createNamespacedCustomObject({ ...ref, body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'bad' }, spec: { color: 'green' } } }),
      );
      assert.equal(invalid.code, 422);
      assert.equal(invalid.status['reason'], 'Invalid');
      const causes = (invalid.status['details'] as { causes: { field: string; reason: string }[] }).causes;
      assert.deepEqual(causes.map((c) => [c.field, c.reason]).sort(), [
        ['spec.color', 'FieldValueNotSupported'],
        ['spec.replicas', 'FieldValueRequired'],
      ]);
    });

    test('refuses a strategic merge patch of a custom object with 415', async () => {
      await custom.createNamespacedCustomObject({ ...ref, body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'smp' }, spec: { replicas: 1 } } });
      const { code, status } = await apiFailure(() =>
        custom.patchNamespacedCustomObject({ ...ref, name: 'smp', body: { spec: { replicas: 2 } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch)),
      );
      assert.equal(code, 415);
      assert.equal(status['reason'], 'UnsupportedMediaType');
    });
  });

  describe('makeInformer', () => {
    const namespace = 'informer-test';
    let informer: Informer<V1ConfigMap> & ObjectCache<V1ConfigMap>;
    const events: string[] = [];
    const errors: unknown[] = [];
    let listCalls = 0;

    before(async () => {
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => {
        listCalls++;
        return core.listNamespacedConfigMap({ namespace });
      });
      informer.on('add', (o) => events.push(`add ${o.metadata?.name}`));
      informer.on('update', (o) => events.push(`update ${o.metadata?.name} ${JSON.stringify(o.data ?? {})}`));
      informer.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
      // client-node 1.4 treats a cut connection as an error and stops its informer until start() is
      // called again: the usual application pattern, used here, restarts it (from its last resourceVersion).
      informer.on('error', (err) => {
        errors.push(err);
        if (!stopping) void informer.start();
      });
      informers.push(informer);
      await informer.start();
    });

    test('receives add, update and delete in order', async () => {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'a' }, data: { v: '1' } } });
      await waitFor(() => events.includes('add a'), { what: 'add a' });
      await core.patchNamespacedConfigMap({ name: 'a', namespace, body: [{ op: 'replace', path: '/data/v', value: '2' }] });
      await waitFor(() => events.includes('update a {"v":"2"}'), { what: 'update a' });
      await core.deleteNamespacedConfigMap({ name: 'a', namespace });
      await waitFor(() => events.includes('delete a'), { what: 'delete a' });
      assert.deepEqual(events, ['add a', 'update a {"v":"2"}', 'delete a']);
      assert.deepEqual(errors, []);
      assert.equal(listCalls, 1);
    });

    test('relists after its resumed watch gets 410 and keeps receiving events', async () => {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'b' } } });
      await waitFor(() => events.includes('add b'), { what: 'add b' });
      // A write the informer does not see moves the global resourceVersion past its last one, so that
      // after compaction its resume point is too old (resuming from the newest version is no 410).
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'elsewhere' } } });
      server.faults.compact();
      assert.ok(server.faults.dropWatches() >= 1, 'the informer had a watch open');
      await waitFor(() => listCalls === 2, { what: 'the informer to relist' });
      assert.equal(errors.length, 1, 'the cut connection is the only error');

      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'c' } } });
      await waitFor(() => events.includes('add c'), { what: 'add c after the relist' });
      assert.equal(errors.length, 1);
      assert.deepEqual(informer.list(namespace).map((o) => o.metadata?.name).sort(), ['b', 'c']);
    });
  });
});
