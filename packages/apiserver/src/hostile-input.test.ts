/**
 * Hostile input over real HTTP: whatever a client sends, the server answers with a 4xx Status in
 * bounded time and goes on serving everyone else.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from './api-server.js';
import type { ApiServer } from './api-server.js';
import { call } from './testing/test-client.js';

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A CRD `<plural>.example.com` whose `spec` has the given properties. */
function crdWithSpec(plural: string, kind: string, properties: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      names: { plural, kind },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } } }],
    },
  };
}

describe('hostile input', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer();
  });
  after(async () => {
    await server.stop();
  });

  describe('CRD schemas', () => {
    test('a catastrophic pattern is matched in linear time: the write is answered 422 at once', async () => {
      const created = await call(server.url, 'POST', crdsPath, crdWithSpec('backtracks', 'Backtrack', { word: { type: 'string', pattern: '^(a+)+$' } }));
      assert.equal(created.status, 201, created.text);
      const path = '/apis/example.com/v1/namespaces/default/backtracks';
      const ok = await call(server.url, 'POST', path, { apiVersion: 'example.com/v1', kind: 'Backtrack', metadata: { name: 'ok' }, spec: { word: 'aaaa' } });
      assert.equal(ok.status, 201, ok.text);

      // A backtracking engine needs about 2^32 steps (tens of seconds) for this one.
      const started = performance.now();
      const evil = await call(server.url, 'POST', path, { apiVersion: 'example.com/v1', kind: 'Backtrack', metadata: { name: 'evil' }, spec: { word: `${'a'.repeat(32)}!` } });
      const elapsedMs = performance.now() - started;
      assert.equal(evil.status, 422, evil.text);
      assert.match(evil.body.message, /spec\.word: Invalid value: "a{32}!": spec\.word in body should match '\^\(a\+\)\+\$'/);
      assert.ok(elapsedMs < 2000, `answered in ${Math.round(elapsedMs)} ms`);

      const long = await call(server.url, 'POST', path, { apiVersion: 'example.com/v1', kind: 'Backtrack', metadata: { name: 'long' }, spec: { word: `${'a'.repeat(100_000)}!` } });
      assert.equal(long.status, 422);
    });

    test('a pattern Go cannot compile (lookahead, backreference) is refused with the real message', async () => {
      for (const [pattern, problem] of [
        ['(?=a)b', 'invalid or unsupported Perl syntax: `(?=`'],
        ['(a)\\1', 'invalid escape sequence: `\\1`'],
      ] as const) {
        const res = await call(server.url, 'POST', crdsPath, crdWithSpec('lookarounds', 'Lookaround', { word: { type: 'string', pattern } }));
        assert.equal(res.status, 422, res.text);
        assert.deepEqual(res.body.details.causes, [
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: ${JSON.stringify(pattern)}: must be a valid regular expression, but isn't: error parsing regexp: ${problem}`,
            field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[word].pattern',
          },
        ]);
      }
    });

    test('uniqueItems: true is forbidden, as kube-apiserver forbids it, wherever it appears', async () => {
      const res = await call(
        server.url,
        'POST',
        crdsPath,
        crdWithSpec('uniques', 'Unique', {
          tags: { type: 'array', uniqueItems: true, items: { type: 'string' } },
          nested: { type: 'object', properties: { list: { type: 'array', uniqueItems: true, items: { type: 'object' } } } },
        }),
      );
      assert.equal(res.status, 422, res.text);
      const message = 'Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic';
      assert.deepEqual(res.body.details.causes, [
        { reason: 'FieldValueForbidden', message, field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[nested].properties[list].uniqueItems' },
        { reason: 'FieldValueForbidden', message, field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].uniqueItems' },
      ]);
      assert.equal((await call(server.url, 'GET', `${crdsPath}/uniques.example.com`)).status, 404);
    });
  });
});
