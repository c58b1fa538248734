import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from './api-server.js';
import type { ApiServer } from './api-server.js';
import { duplicateFieldPaths } from './duplicate-fields.js';
import { call, widgetCrd, widgetsPath } from './testing/test-client.js';

describe('keys set twice in a JSON body', () => {
  test('are found with their paths, in objects nested in lists too; strings that look like JSON do not count', () => {
    const text = '{"spec":{"a":1,"b":{"x":1},"a":2,"list":[{"n":1,"n":2},{"n":3}]},"s":"{\\"k\\":1,\\"k\\":2}","spec":{}}';
    assert.deepEqual(duplicateFieldPaths(text), ['spec.a', 'spec.list[0].n', 'spec']);
    assert.deepEqual(duplicateFieldPaths('{"a":[1,2],"b":"x\\"y","c":{"a":1}}'), []);
  });

  describe('over HTTP', () => {
    let server: ApiServer;
    before(async () => {
      server = await startApiServer();
      assert.equal((await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd())).status, 201);
    });
    after(() => server.stop());

    const body = (name: string): string => `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":{"replicas":1,"replicas":2}}`;

    test('by default the write succeeds with the last value and a Warning header naming the field', async () => {
      const res = await call(server.url, 'POST', widgetsPath(), body('dup-warn'));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.spec.replicas, 2);
      assert.equal(res.headers.warning, '299 - "duplicate field \\"spec.replicas\\""');
    });

    test('under fieldValidation=Strict it is a 400 strict decoding error, and Ignore says nothing', async () => {
      const strict = await call(server.url, 'POST', `${widgetsPath()}?fieldValidation=Strict`, body('dup-strict'));
      assert.equal(strict.status, 400);
      assert.equal(strict.body.message, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: duplicate field "spec.replicas"');
      const ignored = await call(server.url, 'POST', `${widgetsPath()}?fieldValidation=Ignore`, body('dup-ignore'));
      assert.equal(ignored.status, 201);
      assert.equal(ignored.headers.warning, undefined);
    });
  });
});
