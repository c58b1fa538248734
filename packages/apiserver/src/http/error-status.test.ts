import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RawWatch, waitFor, widgetsPath } from '../testing/test-client.js';
import { serverForSuite } from '../suite-server.test-helper.js';
import { exampleCrd } from '../example-crd.test-helper.js';

describe('error responses are Status objects with the real reasons and messages', () => {
  const suite = serverForSuite({ server: { maxBodyBytes: 64 * 1024 }, widgetCrd: true });
  const { req } = suite;

  before(async () => {
    await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { replicas: 1 } });
  });

  const assertStatus = (res: { status: number; headers: Record<string, unknown>; body: Record<string, unknown> }, code: number, reason: string): void => {
    assert.equal(res.status, code);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.body.kind, 'Status');
    assert.equal(res.body.apiVersion, 'v1');
    assert.equal(res.body.status, 'Failure');
    assert.equal(res.body.reason, reason);
    assert.equal(res.body.code, code);
  };

  test('404 NotFound names the qualified resource', async () => {
    const res = await req('GET', `${widgetsPath()}/missing`);
    assertStatus(res, 404, 'NotFound');
    assert.deepEqual(res.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'widgets.example.com "missing" not found',
      reason: 'NotFound',
      details: { name: 'missing', group: 'example.com', kind: 'widgets' },
      code: 404,
    });
    assertStatus(await req('GET', '/apis/nothing.example.com/v1/things'), 404, 'NotFound');
  });

  test('a Status body is written as kube-apiserver writes it, ending in a newline (clients compare the whole text)', async () => {
    const res = await req('GET', `${widgetsPath()}/missing`);
    assert.equal(
      res.text,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.example.com \\"missing\\" not found",' +
        '"reason":"NotFound","details":{"name":"missing","group":"example.com","kind":"widgets"},"code":404}\n',
    );
    assert.equal((await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'newline' } })).status, 201);
    const deleted = await req('DELETE', '/api/v1/namespaces/default/configmaps/newline');
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.status, 'Success');
    assert.ok(deleted.text.endsWith('}\n'), `the Success Status of a delete ends in a newline too: ${JSON.stringify(deleted.text.slice(-3))}`);
  });

  test('409 AlreadyExists for a duplicate create', async () => {
    const res = await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { replicas: 1 } });
    assertStatus(res, 409, 'AlreadyExists');
    assert.equal(res.body.message, 'widgets.example.com "w1" already exists');
  });

  test('422 Invalid names every failing field in details.causes', async () => {
    const res = await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'bad' }, spec: { replicas: 'x', color: 'green' } });
    assertStatus(res, 422, 'Invalid');
    assert.match(res.body.message as string, /^Widget.example.com "bad" is invalid: \[/);
    const causes = (res.body.details as { causes: { field: string; reason: string }[] }).causes;
    assert.deepEqual(causes.map((c) => [c.field, c.reason]).sort(), [
      ['spec.color', 'FieldValueNotSupported'],
      ['spec.replicas', 'FieldValueTypeInvalid'],
    ]);
    assert.deepEqual(res.body.details && { ...(res.body.details as object), causes: undefined }, { name: 'bad', group: 'example.com', kind: 'Widget', causes: undefined });
  });

  test('410 Expired arrives as a watch ERROR event when the resourceVersion is too old', async () => {
    suite.server.faults.compact();
    const w = await new RawWatch(`${suite.server.url}${widgetsPath()}?watch=true&resourceVersion=1`).ready();
    assert.equal(w.status, 200);
    const [event] = await w.waitForEvents(1);
    assert.equal(event!.type, 'ERROR');
    assert.equal(event!.object.code, 410);
    assert.equal(event!.object.reason, 'Expired');
    assert.equal(event!.object.message, `too old resource version: 1 (${suite.server.resourceVersion()})`);
    w.close();
  });

  test('415 UnsupportedMediaType for a strategic merge patch of a custom resource', async () => {
    const res = await req('PATCH', `${widgetsPath()}/w1`, { spec: { replicas: 2 } }, 'application/strategic-merge-patch+json');
    assertStatus(res, 415, 'UnsupportedMediaType');
    assert.equal(
      res.body.message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  test('400 BadRequest for an unparseable label selector and a malformed body', async () => {
    assertStatus(await req('GET', `${widgetsPath()}?labelSelector=${encodeURIComponent('a in (b')}`), 400, 'BadRequest');
    assertStatus(await req('POST', widgetsPath(), '{not json', 'application/json'), 400, 'BadRequest');
    const mismatch = await req('PUT', `${widgetsPath()}/w1`, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'other' } });
    assertStatus(mismatch, 400, 'BadRequest');
    assert.equal(mismatch.body.message, 'the name of the object (other) does not match the name on the URL (w1)');
  });

  test('405 MethodNotAllowed for a verb the path does not take', async () => {
    const res = await req('PUT', widgetsPath(), { metadata: { name: 'x' } });
    assertStatus(res, 405, 'MethodNotAllowed');
    assert.equal(res.body.message, 'the server does not allow this method on the requested resource');
    assertStatus(await req('POST', `${widgetsPath()}/w1`, {}), 405, 'MethodNotAllowed');
  });

  test('413 RequestEntityTooLarge for a body over maxBodyBytes', async () => {
    const res = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'big' }, data: { blob: 'x'.repeat(70 * 1024) } });
    assertStatus(res, 413, 'RequestEntityTooLarge');
    assert.equal(res.body.message, `Request entity too large: limit is ${64 * 1024}`);
  });

  test('an update with a fieldValidation=Strict body carrying unknown fields is 400, Warn answers with a Warning header', async () => {
    const strict = await req('POST', `${widgetsPath()}?fieldValidation=Strict`, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'strict' }, spec: { replicas: 1, extra: 1 } });
    assertStatus(strict, 400, 'BadRequest');
    assert.equal(strict.body.message, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.extra"');
    const warn = await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'warn' }, spec: { replicas: 1, extra: 1 } });
    assert.equal(warn.status, 201);
    assert.equal(warn.headers.warning, '299 - "unknown field \\"spec.extra\\""');
    assert.equal(warn.body.spec.extra, undefined, 'unknown fields are pruned');
  });

  test('Strict reports every unknown field of a body: the root, metadata, nested and an embedded object\'s metadata', async () => {
    const crd = exampleCrd(
      { plural: 'templates', kind: 'Template' },
      { pod: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } } } },
    );
    assert.equal((await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    const path = '/apis/example.com/v1/namespaces/default/templates';
    await waitFor(async () => (await req('GET', path)).status === 200, { message: 'the Template type is served' });
    const body = {
      apiVersion: 'example.com/v1',
      kind: 'Template',
      top: 1,
      metadata: { name: 't', mine: 2 },
      spec: { extra: 3, pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' }, stray: 4 }, spec: { image: 'i', other: 5 } } },
    };
    const strict = await req('POST', `${path}?fieldValidation=Strict`, body);
    assertStatus(strict, 400, 'BadRequest');
    const reported = [...String(strict.body.message).matchAll(/unknown field "([^"]+)"/g)].map((m) => m[1]).sort();
    assert.deepEqual(reported, ['metadata.mine', 'spec.extra', 'spec.pod.metadata.stray', 'spec.pod.spec.other', 'top']);
    const warned = await req('POST', path, body);
    assert.equal(warned.status, 201, warned.text);
    assert.deepEqual(warned.body.spec.pod.metadata, { name: 'p', labels: { a: 'b' } }, 'the embedded metadata keeps its ObjectMeta fields only');
  });
});
