import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForSuite } from '../suite-server.test-helper.js';
import { maxStatusCauses } from './status-error.js';
import { exampleCrd } from '../example-crd.test-helper.js';

const listsPath = '/apis/example.com/v1/namespaces/default/lists';

/** A CRD whose spec has a `set` list of strings and a list of integers at most 1. */
const listsCrd = exampleCrd(
  { plural: 'lists', singular: 'list', kind: 'List' },
  {
    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    small: { type: 'array', items: { type: 'integer', maximum: 1 } },
  },
);

describe('error bodies stay small however many errors the input has', () => {
  const suite = serverForSuite();
  const { req } = suite;

  before(async () => {
    const crd = await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', listsCrd);
    assert.equal(crd.status, 201, crd.text);
  });

  test('50,000 equal items of a set list are one Duplicate value error, at the first repetition, as kube-apiserver', async () => {
    const body = JSON.stringify({ apiVersion: 'example.com/v1', kind: 'List', metadata: { name: 'dup' }, spec: { tags: Array<string>(50_000).fill('same') } });
    const res = await req('POST', listsPath, body);
    assert.equal(res.status, 422);
    assert.equal(res.body.message, 'List.example.com "dup" is invalid: spec.tags[1]: Duplicate value: "same"');
    assert.deepEqual(res.body.details.causes, [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: "same"', field: 'spec.tags[1]' }]);
    assert.ok(res.text.length < 1000, `${res.text.length} bytes answered a ${body.length}-byte request`);
  });

  test(`50,000 invalid items list ${maxStatusCauses} causes and say how many more were left out`, async () => {
    const body = JSON.stringify({ apiVersion: 'example.com/v1', kind: 'List', metadata: { name: 'big' }, spec: { small: Array<number>(50_000).fill(2) } });
    const res = await req('POST', listsPath, body);
    assert.equal(res.status, 422);
    const causes = res.body.details.causes as { field: string }[];
    assert.equal(causes.length, maxStatusCauses);
    assert.deepEqual(causes.slice(0, 2).map((c) => c.field), ['spec.small[0]', 'spec.small[1]']);
    assert.match(res.body.message, /^List\.example\.com "big" is invalid: \[spec\.small\[0\]: Invalid value: 2: .*\] \(49900 more errors left out\)$/);
    assert.ok(res.text.length < body.length / 2, `${res.text.length} bytes answered a ${body.length}-byte request`);
  });

  test(`an apply conflicting on 5,000 fields lists ${maxStatusCauses} of them and says how many more conflict`, async () => {
    const configMap = (value: string): string =>
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned' }, data: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, value])) });
    const path = '/api/v1/namespaces/default/configmaps/owned';
    assert.equal((await req('PATCH', `${path}?fieldManager=first`, configMap('a'), 'application/apply-patch+yaml')).status, 201);
    const body = configMap('b');
    const res = await req('PATCH', `${path}?fieldManager=second`, body, 'application/apply-patch+yaml');
    assert.equal(res.status, 409);
    const causes = res.body.details.causes as { reason: string; message: string; field: string }[];
    assert.equal(causes.length, maxStatusCauses);
    assert.deepEqual(causes[0], { reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.k0' });
    const message = res.body.message as string;
    assert.ok(message.startsWith('Apply failed with 5000 conflicts: conflicts with "first":\n- .data.k0\n- .data.k1\n'), message.slice(0, 200));
    assert.equal(message.split('\n- ').length - 1, maxStatusCauses, 'fields quoted in the message');
    assert.ok(message.endsWith(`- .data.k${maxStatusCauses - 1} (4900 more conflicts left out)`), message.slice(-200));
    assert.ok(res.text.length < body.length / 4, `${res.text.length} bytes answered a ${body.length}-byte request`);
  });
});
