import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { call } from '../testing/test-client.js';

const cms = '/api/v1/namespaces/default/configmaps';
const deployments = '/apis/apps/v1/namespaces/default/deployments';
const applyType = 'application/apply-patch+yaml';

function configMap(name: string, data: Record<string, string>): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
}

describe('managedFields and server-side apply field ownership', () => {
  let server: ApiServer;
  const req = (method: string, path: string, body?: unknown, contentType?: string, headers?: Record<string, string>) =>
    call(server.url, method, path, body, { ...(contentType && { contentType }), ...(headers && { headers }) });

  before(async () => {
    server = await startApiServer();
  });
  after(() => server.stop());

  test('a create records an Update entry for fieldManager, else for the User-Agent program name', async () => {
    const named = await req('POST', `${cms}?fieldManager=my-operator`, { metadata: { name: 'mf1', labels: { a: 'b' } }, data: { k: 'v' } });
    assert.equal(named.status, 201, named.text);
    const [entry] = named.body.metadata.managedFields;
    assert.equal(entry.manager, 'my-operator');
    assert.equal(entry.operation, 'Update');
    assert.equal(entry.apiVersion, 'v1');
    assert.equal(entry.fieldsType, 'FieldsV1');
    assert.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(entry.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:data': { 'f:k': {} } });
    const agent = await req('POST', cms, { metadata: { name: 'mf2' }, data: { k: 'v' } }, undefined, { 'user-agent': 'OpenAPI-Generator/22.6.0/python' });
    assert.equal(agent.body.metadata.managedFields[0].manager, 'OpenAPI-Generator');
  });

  test('an update adds the updater, which takes the fields it changed from their owner; a no-op changes nothing', async () => {
    const created = await req('POST', `${cms}?fieldManager=creator`, { metadata: { name: 'mf3' }, data: { a: '1', b: '2' } });
    const updated = await req('PUT', `${cms}/mf3?fieldManager=editor`, { ...created.body, data: { a: '1', b: '3' } });
    assert.equal(updated.status, 200, updated.text);
    const entries = updated.body.metadata.managedFields.map((e: { manager: string; fieldsV1: unknown }) => [e.manager, e.fieldsV1]);
    assert.deepEqual(entries, [
      ['creator', { 'f:data': { 'f:a': {} } }],
      ['editor', { 'f:data': { 'f:b': {} } }],
    ]);
    const noop = await req('PUT', `${cms}/mf3?fieldManager=third`, updated.body);
    assert.equal(noop.body.metadata.resourceVersion, updated.body.metadata.resourceVersion);
    assert.equal(noop.body.metadata.managedFields.length, 2);
  });

  test('a re-apply that omits a field it owns removes the field; fields others own stay', async () => {
    await req('PATCH', `${cms}/mf4?fieldManager=app`, configMap('mf4', { a: '1', b: '2' }), applyType);
    await req('PATCH', `${cms}/mf4?fieldManager=other`, { data: { c: '3' } }, 'application/merge-patch+json');
    const reapplied = await req('PATCH', `${cms}/mf4?fieldManager=app`, configMap('mf4', { a: '1' }), applyType);
    assert.equal(reapplied.status, 200, reapplied.text);
    assert.deepEqual(reapplied.body.data, { a: '1', c: '3' });
  });

  test('a second manager changing an applied field gets 409 listing the fields; force=true moves ownership', async () => {
    await req('PATCH', `${cms}/mf5?fieldManager=first`, configMap('mf5', { a: '1', b: '2' }), applyType);
    const conflict = await req('PATCH', `${cms}/mf5?fieldManager=second`, configMap('mf5', { a: 'x', b: 'y' }), applyType);
    assert.equal(conflict.status, 409, conflict.text);
    assert.equal(conflict.body.reason, 'Conflict');
    assert.equal(conflict.body.message, 'Apply failed with 2 conflicts: conflicts with "first":\n- .data.a\n- .data.b');
    assert.deepEqual(conflict.body.details.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.b' },
    ]);
    const same = await req('PATCH', `${cms}/mf5?fieldManager=second`, configMap('mf5', { a: '1' }), applyType);
    assert.equal(same.status, 200, 'applying the same value shares the field');
    const forced = await req('PATCH', `${cms}/mf5?fieldManager=second&force=true`, configMap('mf5', { a: '1', b: 'y' }), applyType);
    assert.equal(forced.status, 200, forced.text);
    assert.deepEqual(forced.body.data, { a: '1', b: 'y' });
    const owners = Object.fromEntries(forced.body.metadata.managedFields.map((e: { manager: string; fieldsV1: unknown }) => [e.manager, e.fieldsV1]));
    assert.deepEqual(owners, { first: { 'f:data': { 'f:a': {} } }, second: { 'f:data': { 'f:a': {}, 'f:b': {} } } });
    const back = await req('PATCH', `${cms}/mf5?fieldManager=first`, configMap('mf5', { a: '1', b: '2' }), applyType);
    assert.equal(back.status, 409, 'first lost b and conflicts now');
  });

  test('a conflict with an Update owner names its apiVersion and time; force is refused on other patch types', async () => {
    await req('POST', `${cms}?fieldManager=kubectl-edit`, { metadata: { name: 'mf6' }, data: { a: '1' } });
    const conflict = await req('PATCH', `${cms}/mf6?fieldManager=applier`, configMap('mf6', { a: '2' }), applyType);
    assert.equal(conflict.status, 409);
    assert.match(conflict.body.message, /^Apply failed with 1 conflict: conflict with "kubectl-edit" using v1 at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: \.data\.a$/);
    const badForce = await req('PATCH', `${cms}/mf6?force=true`, { data: { a: '3' } }, 'application/merge-patch+json');
    assert.equal(badForce.status, 422);
    assert.match(badForce.body.message, /force: Forbidden: may not be specified for non-apply patch/);
  });

  test('apply on a Deployment tracks containers by name: a container one manager stops applying goes, another manager’s stays', async () => {
    const config = (containers: { name: string; image: string }[]): string =>
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'ssa' },
        spec: { selector: { matchLabels: { app: 'ssa' } }, template: { metadata: { labels: { app: 'ssa' } }, spec: { containers } } },
      });
    const first = await req('PATCH', `${deployments}/ssa?fieldManager=app`, config([{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }]), applyType);
    assert.equal(first.status, 201, first.text);
    const entry = first.body.metadata.managedFields[0];
    assert.ok(entry.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"a"}'], JSON.stringify(entry.fieldsV1));
    const sidecar = await req(
      'PATCH',
      `${deployments}/ssa?fieldManager=injector`,
      { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 's:1' }] } } } },
      'application/strategic-merge-patch+json',
    );
    assert.equal(sidecar.status, 200, sidecar.text);
    const second = await req('PATCH', `${deployments}/ssa?fieldManager=app`, config([{ name: 'a', image: 'a:2' }]), applyType);
    assert.equal(second.status, 200, second.text);
    const containers = second.body.spec.template.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`);
    assert.deepEqual(containers, ['a=a:2', 'sidecar=s:1']);
  });
});
