import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor, widgetCrd, widgetsPath } from './testing/test-client.js';
import { serverForSuite } from './suite-server.test-helper.js';

describe('object semantics', () => {
  const suite = serverForSuite({ widgetCrd: true });
  const { req, watch } = suite;

  test('one resourceVersion counter is shared by every kind and every write bumps it', async () => {
    const a = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'rv-a' } });
    const b = await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'rv-b' }, spec: { replicas: 1 } });
    const c = await req('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'rv-c' }, spec: {} });
    const rvs = [a, b, c].map((r) => Number(r.body.metadata.resourceVersion));
    assert.deepEqual(rvs, [rvs[0], rvs[0]! + 1, rvs[0]! + 2]);
    assert.equal(suite.server.resourceVersion(), String(rvs[2]));
    const list = await req('GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(list.body.metadata.resourceVersion, suite.server.resourceVersion());
  });

  test('a created object gets a uid and a creationTimestamp, and create ignores client-set server fields', async () => {
    const res = await req('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'fresh', uid: 'mine', creationTimestamp: '2000-01-01T00:00:00Z', generation: 7 },
      data: { a: 'b' },
    });
    assert.equal(res.status, 201);
    assert.match(res.body.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(res.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.notEqual(res.body.metadata.creationTimestamp, '2000-01-01T00:00:00Z');
    assert.equal(res.body.metadata.generation, undefined, 'ConfigMaps have no generation');
  });

  test('a no-op update or patch returns 200, keeps the resourceVersion and emits no event', async () => {
    const created = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'noop', labels: { a: '1' } }, data: { k: 'v' } });
    const w = await watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${created.body.metadata.resourceVersion}&fieldSelector=metadata.name=noop`).ready();
    const before = suite.server.resourceVersion();
    const put = await req('PUT', '/api/v1/namespaces/default/configmaps/noop', { ...created.body, data: { k: 'v' } });
    assert.equal(put.status, 200);
    assert.equal(put.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
    const patch = await req('PATCH', '/api/v1/namespaces/default/configmaps/noop', { metadata: { labels: { a: '1' } } }, 'application/merge-patch+json');
    assert.equal(patch.status, 200);
    assert.equal(patch.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
    assert.equal(suite.server.resourceVersion(), before);
    // A real change afterwards is the first event the watcher sees.
    await req('PATCH', '/api/v1/namespaces/default/configmaps/noop', { data: { k: 'w' } }, 'application/merge-patch+json');
    const events = await w.waitForEvents(1);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, 'MODIFIED');
    assert.equal(events[0]!.object.data.k, 'w');
  });

  test('custom resource generation starts at 1 and bumps on spec changes only', async () => {
    const created = await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'gen' }, spec: { replicas: 1 } });
    assert.equal(created.body.metadata.generation, 1);
    const labelled = await req('PATCH', `${widgetsPath()}/gen`, { metadata: { labels: { x: 'y' } } }, 'application/merge-patch+json');
    assert.equal(labelled.body.metadata.generation, 1, 'metadata-only changes do not bump');
    const status = await req('PATCH', `${widgetsPath()}/gen/status`, { status: { ready: true } }, 'application/merge-patch+json');
    assert.equal(status.body.metadata.generation, 1, 'status changes do not bump with the subresource on');
    const spec = await req('PATCH', `${widgetsPath()}/gen`, { spec: { replicas: 2 } }, 'application/merge-patch+json');
    assert.equal(spec.body.metadata.generation, 2);
  });

  test('the status subresource: create drops status, main writes keep it, /status writes change only status', async () => {
    const created = await req('POST', widgetsPath(), {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'st' },
      spec: { replicas: 1 },
      status: { ready: true },
    });
    assert.equal(created.body.status, undefined);
    const status = await req('PUT', `${widgetsPath()}/st/status`, { ...created.body, spec: { replicas: 9 }, metadata: { ...created.body.metadata, labels: { ignored: 'yes' } }, status: { ready: true } });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(status.body.status, { ready: true });
    assert.equal(status.body.spec.replicas, 1, 'a /status write ignores spec');
    assert.equal(status.body.metadata.labels, undefined, 'a /status write ignores metadata');
    const main = await req('PUT', `${widgetsPath()}/st`, { ...status.body, spec: { replicas: 3 }, status: { ready: false } });
    assert.equal(main.body.spec.replicas, 3);
    assert.deepEqual(main.body.status, { ready: true }, 'a main write keeps the old status');
  });

  test('without the status subresource /status is 404 and status is part of the object', async () => {
    await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      ...widgetCrd({ statusSubresource: false }),
      metadata: { name: 'gadgets.example.com' },
      spec: { ...(widgetCrd().spec as object), names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ ...((widgetCrd({ statusSubresource: false }).spec as { versions: object[] }).versions[0] as object) }] },
    });
    const path = '/apis/example.com/v1/namespaces/default/gadgets';
    const created = await req('POST', path, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { replicas: 1 }, status: { ready: true } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.status, { ready: true });
    const status = await req('GET', `${path}/g/status`);
    assert.equal(status.status, 404);
    const changed = await req('PATCH', `${path}/g`, { status: { ready: false } }, 'application/merge-patch+json');
    assert.equal(changed.body.metadata.generation, 2, 'status counts as spec without the subresource');
  });

  test('an update with a stale resourceVersion is 409 with the real message', async () => {
    const created = await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { replicas: 1 } });
    await req('PATCH', `${widgetsPath()}/w1`, { spec: { replicas: 2 } }, 'application/merge-patch+json');
    const stale = await req('PUT', `${widgetsPath()}/w1`, { ...created.body, spec: { replicas: 5 } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    assert.equal(
      stale.body.message,
      'Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified; please apply your changes to the latest version and try again',
    );
    assert.deepEqual(stale.body.details, { name: 'w1', group: 'example.com', kind: 'widgets' });
  });

  test('a custom resource update without resourceVersion is 422, a ConfigMap update without one is accepted', async () => {
    const w = await req('GET', `${widgetsPath()}/w1`);
    const { resourceVersion: _rv, ...meta } = w.body.metadata;
    const res = await req('PUT', `${widgetsPath()}/w1`, { ...w.body, metadata: meta });
    assert.equal(res.status, 422);
    assert.equal(res.body.message, 'Widget.example.com "w1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    assert.deepEqual(res.body.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }]);
    await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'uncond' } });
    const cm = await req('PUT', '/api/v1/namespaces/default/configmaps/uncond', { metadata: { name: 'uncond' }, data: { a: 'b' } });
    assert.equal(cm.status, 200);
  });

  test('a merge patch carrying a stale resourceVersion is 409', async () => {
    const w = await req('GET', `${widgetsPath()}/w1`);
    const ok = await req('PATCH', `${widgetsPath()}/w1`, { metadata: { resourceVersion: w.body.metadata.resourceVersion }, spec: { replicas: 7 } }, 'application/merge-patch+json');
    assert.equal(ok.status, 200);
    const stale = await req('PATCH', `${widgetsPath()}/w1`, { metadata: { resourceVersion: w.body.metadata.resourceVersion }, spec: { replicas: 8 } }, 'application/merge-patch+json');
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
  });

  test('delete preconditions on uid and resourceVersion are checked', async () => {
    const created = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'pre' } });
    const uid = await req('DELETE', '/api/v1/namespaces/default/configmaps/pre', { preconditions: { uid: 'other' } });
    assert.equal(uid.status, 409);
    assert.equal(uid.body.message, `Operation cannot be fulfilled on configmaps "pre": Precondition failed: UID in precondition: other, UID in object meta: ${created.body.metadata.uid}`);
    const rv = await req('DELETE', '/api/v1/namespaces/default/configmaps/pre', { preconditions: { resourceVersion: '1' } });
    assert.equal(rv.status, 409);
    assert.match(rv.body.message, /Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: \d+/);
    const ok = await req('DELETE', '/api/v1/namespaces/default/configmaps/pre', {
      preconditions: { uid: created.body.metadata.uid, resourceVersion: created.body.metadata.resourceVersion },
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.kind, 'Status');
    assert.equal(ok.body.status, 'Success');
    assert.deepEqual(ok.body.details, { name: 'pre', kind: 'configmaps', uid: created.body.metadata.uid });
  });

  test('a delete without finalizers removes the object at once and watchers get DELETED with a new resourceVersion', async () => {
    const created = await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'gone' }, spec: { replicas: 1 } });
    const w = await watch(`${widgetsPath()}?watch=true&resourceVersion=${created.body.metadata.resourceVersion}`).ready();
    const del = await req('DELETE', `${widgetsPath()}/gone`, { propagationPolicy: 'Background' });
    assert.equal(del.status, 200);
    assert.equal(del.body.kind, 'Widget', 'custom resources answer a delete with the object');
    const [event] = await w.waitForEvents(1);
    assert.equal(event!.type, 'DELETED');
    assert.ok(Number(event!.object.metadata.resourceVersion) > Number(created.body.metadata.resourceVersion));
    assert.equal((await req('GET', `${widgetsPath()}/gone`)).status, 404);
  });

  test('finalizers hold a delete; removing the last one deletes the object and watchers see one DELETED', async () => {
    const created = await req('POST', widgetsPath(), {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'fin', finalizers: ['example.com/a', 'example.com/b'] },
      spec: { replicas: 1 },
    });
    const w = await watch(`${widgetsPath()}?watch=true&resourceVersion=${created.body.metadata.resourceVersion}`).ready();
    const del = await req('DELETE', `${widgetsPath()}/fin`);
    assert.equal(del.status, 200);
    assert.ok(del.body.metadata.deletionTimestamp);
    assert.equal(del.body.metadata.deletionGracePeriodSeconds, 0);
    assert.equal(del.body.metadata.generation, 2, 'setting deletionTimestamp bumps generation');
    const again = await req('DELETE', `${widgetsPath()}/fin`);
    assert.equal(again.body.metadata.resourceVersion, del.body.metadata.resourceVersion, 'a second delete changes nothing');

    const added = await req('PATCH', `${widgetsPath()}/fin`, { metadata: { finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } }, 'application/merge-patch+json');
    assert.equal(added.status, 422);
    assert.match(added.body.message, /no new finalizers can be added if the object is being deleted, found new finalizers \[\]string\{"example.com\/c"\}/);

    const one = await req('PATCH', `${widgetsPath()}/fin`, [{ op: 'replace', path: '/metadata/finalizers', value: ['example.com/b'] }], 'application/json-patch+json');
    assert.equal(one.status, 200);
    const last = await req('PATCH', `${widgetsPath()}/fin`, [{ op: 'remove', path: '/metadata/finalizers' }], 'application/json-patch+json');
    assert.equal(last.status, 200);
    assert.equal((await req('GET', `${widgetsPath()}/fin`)).status, 404);
    await waitFor(() => w.events.some((e) => e.type === 'DELETED'));
    assert.deepEqual(
      w.events.map((e) => e.type),
      ['MODIFIED', 'MODIFIED', 'DELETED'],
    );
  });

  describe('empty metadata lists and maps are omitted, as kube-apiserver does', () => {
    const emptied = ['finalizers', 'ownerReferences', 'labels', 'annotations', 'managedFields'];
    // The owner exists: a reference to a missing owner would get the widget garbage-collected.
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '' };
    before(async () => {
      const created = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'owner' } });
      assert.equal(created.status, 201, created.text);
      owner.uid = created.body.metadata.uid;
    });
    const widget = (name: string, extra: Record<string, unknown> = {}) => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name, finalizers: ['example.com/hold'], labels: { a: '1' }, annotations: { note: 'x' }, ownerReferences: [owner], ...extra },
      spec: { replicas: 1 },
    });
    // managedFields are written by every write (one entry per manager), so only the other four can be emptied by a request.
    const presentEmpties = (meta: Record<string, unknown>): string[] => emptied.filter((f) => f !== 'managedFields' && f in meta);
    /** Reads the object back and checks the answer, the stored object and a watch event all omit the emptied fields. */
    async function assertStoredWithout(name: string, answer: { status: number; text: string; body: { metadata: Record<string, unknown> } }, rv: string): Promise<void> {
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(presentEmpties(answer.body.metadata), []);
      const got = await req('GET', `${widgetsPath()}/${name}`);
      assert.deepEqual(presentEmpties(got.body.metadata), []);
      const { managedFields: _managed, ...metadata } = got.body.metadata;
      assert.doesNotMatch(JSON.stringify({ ...got.body, metadata }), /\[\]|\{\}/, 'no empty list or map anywhere in the stored JSON (FieldsV1 leaves are `{}`)');
      const w = await watch(`${widgetsPath()}?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name=${name}`).ready();
      const [event] = await w.waitForEvents(1);
      assert.deepEqual(presentEmpties(event!.object.metadata), []);
    }

    test('after a merge patch removes the last finalizer, label, annotation and owner reference', async () => {
      const created = await req('POST', widgetsPath(), widget('empty-merge'));
      assert.equal(created.status, 201, created.text);
      const patched = await req(
        'PATCH',
        `${widgetsPath()}/empty-merge`,
        { metadata: { finalizers: [], ownerReferences: [], labels: { a: null }, annotations: { note: null } } },
        'application/merge-patch+json',
      );
      await assertStoredWithout('empty-merge', patched, created.body.metadata.resourceVersion);
      assert.equal(patched.body.metadata.generation, 1, 'metadata-only: no generation bump');
    });

    test('after a JSON patch removes the last element of each', async () => {
      const created = await req('POST', widgetsPath(), widget('empty-json'));
      const patched = await req(
        'PATCH',
        `${widgetsPath()}/empty-json`,
        [
          { op: 'remove', path: '/metadata/finalizers/0' },
          { op: 'remove', path: '/metadata/ownerReferences/0' },
          { op: 'remove', path: '/metadata/labels/a' },
          { op: 'remove', path: '/metadata/annotations/note' },
        ],
        'application/json-patch+json',
      );
      await assertStoredWithout('empty-json', patched, created.body.metadata.resourceVersion);
    });

    test('after an update that sends them empty', async () => {
      const created = await req('POST', widgetsPath(), widget('empty-put'));
      const body = { ...created.body, metadata: { ...created.body.metadata, finalizers: [], ownerReferences: [], labels: {}, annotations: {}, managedFields: [] } };
      const updated = await req('PUT', `${widgetsPath()}/empty-put`, body);
      await assertStoredWithout('empty-put', updated, created.body.metadata.resourceVersion);
    });

    test('after a server-side apply that creates the object with them empty', async () => {
      const before = suite.server.resourceVersion();
      const config = [
        'apiVersion: example.com/v1',
        'kind: Widget',
        'metadata: {name: empty-apply, finalizers: [], ownerReferences: [], labels: {}, annotations: {}}',
        'spec: {replicas: 1}',
      ].join('\n');
      const applied = await req('PATCH', `${widgetsPath()}/empty-apply?fieldManager=test`, config, 'application/apply-patch+yaml');
      assert.equal(applied.status, 201, applied.text);
      assert.deepEqual(presentEmpties(applied.body.metadata), []);
      const got = await req('GET', `${widgetsPath()}/empty-apply`);
      assert.deepEqual(Object.keys(got.body.metadata).filter((k) => emptied.includes(k)), ['managedFields']);
      const w = await watch(`${widgetsPath()}?watch=true&resourceVersion=${before}&fieldSelector=metadata.name=empty-apply`).ready();
      const [event] = await w.waitForEvents(1);
      assert.equal(event!.type, 'ADDED');
      assert.deepEqual(Object.keys(event!.object.metadata).filter((k: string) => emptied.includes(k)), ['managedFields']);
    });

    test('an update that leaves managedFields out keeps them; one that sends them empty clears them', async () => {
      const config = 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: managed}\nspec: {replicas: 1}\n';
      const applied = await req('PATCH', `${widgetsPath()}/managed?fieldManager=test`, config, 'application/apply-patch+yaml');
      assert.equal(applied.body.metadata.managedFields.length, 1);
      const { managedFields: _omitted, ...withoutManaged } = applied.body.metadata;
      const kept = await req('PUT', `${widgetsPath()}/managed`, { ...applied.body, metadata: { ...withoutManaged, labels: { added: 'yes' } } });
      assert.equal(kept.status, 200, kept.text);
      assert.deepEqual(kept.body.metadata.managedFields[0], applied.body.metadata.managedFields[0], "the apply entry is kept");
      assert.deepEqual(kept.body.metadata.managedFields[1].fieldsV1, { 'f:metadata': { 'f:labels': { 'f:added': {} } } }, 'the update added its own entry');
      const cleared = await req('PUT', `${widgetsPath()}/managed`, { ...kept.body, metadata: { ...kept.body.metadata, managedFields: [] } });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.metadata.managedFields, undefined);
    });

    test('sending empty lists and maps to an object without them is a no-op', async () => {
      const created = await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'empty-noop' }, spec: { replicas: 1 } });
      const rv = created.body.metadata.resourceVersion;
      const put = await req('PUT', `${widgetsPath()}/empty-noop`, { ...created.body, metadata: { ...created.body.metadata, finalizers: [], labels: {}, annotations: {}, ownerReferences: [] } });
      assert.equal(put.body.metadata.resourceVersion, rv);
      const merge = await req('PATCH', `${widgetsPath()}/empty-noop`, { metadata: { finalizers: [], labels: {} } }, 'application/merge-patch+json');
      assert.equal(merge.body.metadata.resourceVersion, rv);
      const json = await req('PATCH', `${widgetsPath()}/empty-noop`, [{ op: 'add', path: '/metadata/finalizers', value: [] }], 'application/json-patch+json');
      assert.equal(json.body.metadata.resourceVersion, rv);
      assert.deepEqual(presentEmpties(json.body.metadata), []);
    });
  });

  test('a namespaced create in a missing namespace is 404 NotFound for the namespace', async () => {
    const res = await req('POST', '/api/v1/namespaces/nowhere/configmaps', { metadata: { name: 'x' } });
    assert.equal(res.status, 404);
    assert.equal(res.body.message, 'namespaces "nowhere" not found');
    assert.deepEqual(res.body.details, { name: 'nowhere', kind: 'namespaces' });
  });

  test('names must be DNS subdomains (namespaces: DNS labels) and an empty name is required', async () => {
    const bad = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'Bad_Name' } });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.details.causes[0].field, 'metadata.name');
    assert.match(bad.body.message, /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/);
    const dotted = await req('POST', '/api/v1/namespaces', { metadata: { name: 'a.b' } });
    assert.equal(dotted.status, 422);
    assert.match(dotted.body.message, /RFC 1123 label/);
    const empty = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: {} });
    assert.equal(empty.status, 422);
    assert.equal(empty.body.details.causes[0].message, 'Required value: name or generateName is required');
  });

  test('dryRun=All validates and answers but stores nothing', async () => {
    const before = suite.server.resourceVersion();
    const res = await req('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'dry' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.metadata.name, 'dry');
    assert.equal(res.body.metadata.resourceVersion, undefined);
    assert.equal((await req('GET', '/api/v1/namespaces/default/configmaps/dry')).status, 404);
    const invalid = await req('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'Dry' } });
    assert.equal(invalid.status, 422);
    assert.equal(suite.server.resourceVersion(), before);
  });

  test('generateName creates a unique name from the prefix', async () => {
    const a = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'gen-' } });
    const b = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'gen-' } });
    assert.equal(a.status, 201);
    assert.match(a.body.metadata.name, /^gen-[a-z0-9]{5}$/);
    assert.notEqual(a.body.metadata.name, b.body.metadata.name);
  });

  test('deleting a namespace deletes its objects (in the background), then the namespace', async () => {
    await req('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    await req('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'a' } });
    await req('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const del = await req('DELETE', '/api/v1/namespaces/doomed');
    assert.equal(del.status, 200);
    assert.equal(del.body.status.phase, 'Terminating');
    await waitFor(async () => (await req('GET', '/api/v1/namespaces/doomed/configmaps/a')).status === 404, { message: 'a to be deleted' });
    const blocked = await req('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'late' } });
    assert.equal(blocked.status, 403);
    assert.equal(blocked.body.message, 'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated');
    await req('PATCH', '/api/v1/namespaces/doomed/configmaps/held', { metadata: { finalizers: null } }, 'application/merge-patch+json');
    await waitFor(async () => (await req('GET', '/api/v1/namespaces/doomed')).status === 404, { message: 'the namespace to go' });
    const protectedNs = await req('DELETE', '/api/v1/namespaces/default');
    assert.equal(protectedNs.status, 403);
  });

  test('a CRD must be named <plural>.<group>, is Established at once, and deleting it deletes its objects', async () => {
    const bad = await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { ...widgetCrd(), metadata: { name: 'wrong.example.com' } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural\+"."\+spec.group/);

    const crd = widgetCrd();
    const spec = crd.spec as Record<string, unknown>;
    const things = {
      ...crd,
      metadata: { name: 'things.example.org' },
      spec: { ...spec, group: 'example.org', names: { plural: 'things', kind: 'Thing' } },
    };
    const created = await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', things);
    assert.equal(created.status, 201, created.text);
    const conditions = created.body.status.conditions.map((c: { type: string; status: string; reason: string }) => [c.type, c.status, c.reason]);
    assert.deepEqual(conditions, [
      ['NamesAccepted', 'True', 'NoConflicts'],
      ['Established', 'True', 'InitialNamesAccepted'],
    ]);
    assert.deepEqual(created.body.status.storedVersions, ['v1']);
    assert.equal(created.body.status.acceptedNames.singular, 'thing');
    const path = '/apis/example.org/v1/namespaces/default/things';
    const obj = await req('POST', path, { apiVersion: 'example.org/v1', kind: 'Thing', metadata: { name: 't1' }, spec: { replicas: 1 } });
    assert.equal(obj.status, 201, obj.text);
    const w = await watch(`${path}?watch=true&resourceVersion=${obj.body.metadata.resourceVersion}`).ready();
    const del = await req('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.org');
    assert.equal(del.status, 200);
    await waitFor(() => w.ended);
    assert.deepEqual(w.events.map((e) => e.type), ['DELETED']);
    assert.equal((await req('GET', path)).status, 404);
    assert.equal((await req('GET', '/apis/example.org/v1')).status, 404);
  });
});
