import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtobufObject } from './protobuf/protobuf-decoding.js';
import { serverForSuite } from './suite-server.test-helper.js';

const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';

describe('built-in kinds', () => {
  const { req } = serverForSuite();

  test('Lease MicroTime must have exactly 6 fractional digits: 3 digits is 400 like the real server', async () => {
    const bad = await req('POST', leases, { metadata: { name: 'l1' }, spec: { holderIdentity: 'a', acquireTime: '2024-01-01T00:00:00.000Z' } });
    assert.equal(bad.status, 400);
    assert.equal(
      bad.body.message,
      'Lease in version "v1" cannot be handled as a Lease: parsing time "2024-01-01T00:00:00.000Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".000Z" as ".000000"',
    );
    const ok = await req('POST', leases, {
      metadata: { name: 'l1' },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: '2024-01-01T00:00:00.000000Z', renewTime: '2024-01-01T00:00:00.123456Z' },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.metadata.generation, undefined, 'Leases have no generation');
  });

  test('a Lease round trip: GET 404, POST, PUT with the read resourceVersion, a stale PUT is 409', async () => {
    assert.equal((await req('GET', `${leases}/election`)).status, 404);
    const created = await req('POST', leases, { metadata: { name: 'election' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 10 } });
    assert.equal(created.status, 201);
    const renewed = await req('PUT', `${leases}/election`, { ...created.body, spec: { ...created.body.spec, renewTime: '2024-01-01T00:00:01.000000Z' } });
    assert.equal(renewed.status, 200);
    const lost = await req('PUT', `${leases}/election`, { ...created.body, spec: { ...created.body.spec, holderIdentity: 'b' } });
    assert.equal(lost.status, 409);
    const again = await req('POST', leases, { metadata: { name: 'election' }, spec: {} });
    assert.equal(again.status, 409);
  });

  test('a ConfigMap field of the wrong JSON type is 400 and unknown top-level fields are dropped', async () => {
    const bad = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'typed' }, data: { n: 1 } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /^ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string$/);
    const extra = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'extra' }, data: { a: 'b' }, spec: { no: 'such' } });
    assert.equal(extra.status, 201);
    assert.equal(extra.body.spec, undefined);
  });

  test('Secret stringData is merged into data as base64 and the type defaults to Opaque', async () => {
    const res = await req('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's' }, data: { a: 'YQ==' }, stringData: { b: 'bee' } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data, { a: 'YQ==', b: Buffer.from('bee').toString('base64') });
    assert.equal(res.body.stringData, undefined);
    assert.equal(res.body.type, 'Opaque');
    const bad = await req('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's2' }, data: { a: 'not base64!' } });
    assert.equal(bad.status, 400);
  });

  test('a protobuf ConfigMap, as kubectl create configmap sends it, is decoded', async () => {
    // Captured from `kubectl create configmap foo --from-literal=a=b` (kubectl v1.32).
    const body = Buffer.from('azhzAAoPCgJ2MRIJQ29uZmlnTWFwEh0KEwoDZm9vEgAaACIAKgAyADgAQgASBgoBYRIBYhoAIgA=', 'base64');
    assert.deepEqual(decodeProtobufObject(body), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'foo' }, data: { a: 'b' } });
    const res = await req('POST', '/api/v1/namespaces/default/configmaps', body, 'application/vnd.kubernetes.protobuf');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.deepEqual(res.body.data, { a: 'b' });
  });

  test('ConfigMap binaryData values must be base64 (400 naming the field); data values are any string', async () => {
    const bad = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'bin' }, data: { a: 'not base64!' }, binaryData: { b: 'not base64!' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data in ConfigMap.binaryData');
    const ok = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'bin' }, data: { a: 'not base64!' }, binaryData: { b: 'AAE=' } });
    assert.equal(ok.status, 201, ok.text);
  });

  test('the OpenAPI schema of a built-in kind describes the fields it decodes', async () => {
    const root = await req('GET', '/openapi/v3');
    const core = (await req('GET', root.body.paths['api/v1'].serverRelativeURL)).body.components.schemas;
    const configMap = core['io.k8s.api.core.v1.ConfigMap'].properties;
    assert.deepEqual(Object.keys(configMap), ['apiVersion', 'kind', 'metadata', 'data', 'binaryData', 'immutable']);
    assert.deepEqual(configMap.binaryData, { type: 'object', additionalProperties: { type: 'string', format: 'byte' } });
    assert.equal(core['io.k8s.api.core.v1.Secret'].properties.data.additionalProperties.format, 'byte');
    assert.deepEqual(core['io.k8s.api.core.v1.Event'].properties.involvedObject.properties.fieldPath, { type: 'string' });
    const coordination = (await req('GET', root.body.paths['apis/coordination.k8s.io/v1'].serverRelativeURL)).body.components.schemas;
    const lease = coordination['io.k8s.api.coordination.v1.Lease'].properties.spec.properties;
    assert.deepEqual(lease.renewTime, { type: 'string', format: 'date-time' });
    assert.deepEqual(lease.leaseDurationSeconds, { type: 'integer', format: 'int32' });
  });

  test('a protobuf body of a kind without a known layout is 400, not a crash', async () => {
    assert.throws(() => decodeProtobufObject(Buffer.from('nope')), /magic/);
    const res = await req('POST', '/api/v1/namespaces/default/configmaps', Buffer.from('k8s\u0000\u0001\u0002'), 'application/vnd.kubernetes.protobuf');
    assert.equal(res.status, 400);
  });
});
