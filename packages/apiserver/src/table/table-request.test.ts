import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../http/status-error.js';
import { tableRequestOf } from './table-request.js';

const kubectl = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const none = new URLSearchParams();

describe('tableRequestOf', () => {
  test("answers kubectl's Accept with a v1 Table whose rows carry metadata by default", () => {
    assert.deepEqual(tableRequestOf(kubectl, none), { apiVersion: 'meta.k8s.io/v1', includeObject: 'Metadata' });
  });

  test('honours includeObject and refuses an unknown one with 400', () => {
    assert.equal(tableRequestOf(kubectl, new URLSearchParams('includeObject=Object'))?.includeObject, 'Object');
    assert.equal(tableRequestOf(kubectl, new URLSearchParams('includeObject=None'))?.includeObject, 'None');
    assert.throws(
      () => tableRequestOf(kubectl, new URLSearchParams('includeObject=all')),
      (err: unknown) => err instanceof StatusError && err.status.code === 400,
    );
  });

  test('takes the Accept entries in order and skips what it cannot produce', () => {
    assert.equal(tableRequestOf(undefined, none), undefined);
    assert.equal(tableRequestOf('application/json', none), undefined);
    assert.equal(tableRequestOf('application/json,application/json;as=Table;v=v1;g=meta.k8s.io', none), undefined);
    assert.equal(tableRequestOf('*/*;q=0.8, application/json;as=Table;v=v1;g=meta.k8s.io', none), undefined);
    assert.equal(tableRequestOf('application/json;as=Table;v=v1beta1;g=meta.k8s.io', none)?.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal(tableRequestOf('application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io', none)?.apiVersion, 'meta.k8s.io/v1');
    assert.equal(tableRequestOf('application/json;as=Table;v=v1;g=example.com', none), undefined);
    assert.equal(tableRequestOf('application/json; as=Table; g=meta.k8s.io; v=v1', none)?.apiVersion, 'meta.k8s.io/v1');
  });
});
