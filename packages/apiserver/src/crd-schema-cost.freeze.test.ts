/**
 * What a CRD schema may cost, over real HTTP: pattern matches are priced before they run and
 * refused past the budget, a schema compiles in time linear in its size (patterns within their
 * own budget), and properties named like `Object.prototype` members are ordinary properties.
 * Each hostile request runs under a freeze probe: an unrelated GET on another connection.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from './api-server.js';
import { underFreezeProbe } from './freeze-probe.test-helper.js';
import type { ApiServer } from './api-server.js';
import { call } from './testing/test-client.js';
import { exampleCrd } from './example-crd.test-helper.js';
import { maxPatternCompileCost, maxPatternMatchCost } from './validation/pattern-budget.js';

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

describe('CRD schema cost', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer();
  });
  after(async () => {
    await server.stop();
  });

  describe('pattern matching is priced before it runs', () => {
    const words = '/apis/example.com/v1/namespaces/default/words';
    const word = (name: string, spec: Record<string, unknown>): string => JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Word', metadata: { name }, spec });

    before(async () => {
      const crd = exampleCrd({ plural: 'words', kind: 'Word' }, { s: { type: 'string', pattern: String.raw`\w{500}\d` }, list: { type: 'array', items: { type: 'string', pattern: String.raw`\w{500}\d` } } });
      assert.equal((await call(server.url, 'POST', crdsPath, crd)).status, 201);
    });

    test(`a 0.3 MB value against \\w{500}\\d (7.8 s of matching) is refused at once with a 422 naming the field and the limit`, async () => {
      const body = word('huge', { s: 'a'.repeat(300_000) });
      const { res, worstGetMs, elapsedMs, boundMs } = await underFreezeProbe(server.url, () => call(server.url, 'POST', words, body));
      assert.equal(res.status, 422, res.text.slice(0, 300));
      assert.deepEqual(res.body.details.causes, [
        {
          reason: 'FieldValueInvalid',
          message:
            `Invalid value: "${'a'.repeat(64)}...": spec.s in body is too long to match against the pattern '\\w{500}\\d' within the server's budget: ` +
            `300000 characters x 503 pattern instructions = 150900000, over the limit of ${maxPatternMatchCost} per object`,
          field: 'spec.s',
        },
      ]);
      assert.ok(res.text.length < 2000, `the error does not echo the value: ${res.text.length} bytes`);
      assert.ok(worstGetMs < boundMs, `an unrelated GET waited ${Math.round(worstGetMs)} ms (the write took ${Math.round(elapsedMs)} ms)`);
    });

    test('a value just within the budget is matched, as the real server would, without freezing the server', async () => {
      // 901 x 503 = 453,203: the costliest kind of match this pattern is allowed.
      const matching = word('within', { s: `${'a'.repeat(900)}1` });
      const { res, worstGetMs, boundMs } = await underFreezeProbe(server.url, () => call(server.url, 'POST', words, matching));
      assert.equal(res.status, 201, res.text.slice(0, 300));
      assert.ok(worstGetMs < boundMs, `an unrelated GET waited ${Math.round(worstGetMs)} ms`);
      const failing = await call(server.url, 'POST', words, word('no-digit', { s: 'a'.repeat(900) }));
      assert.equal(failing.status, 422);
      assert.match(failing.body.details.causes[0].message, /spec\.s in body should match '\\w\{500\}\\d'/);
    });

    test('the budget is per object: many values within it each cannot add up past it', async () => {
      // 400 x 503 = 201,200 each: two fit, the third is refused.
      const body = word('many', { list: Array.from({ length: 50 }, () => `${'a'.repeat(399)}1`) });
      const { res, worstGetMs, boundMs } = await underFreezeProbe(server.url, () => call(server.url, 'POST', words, body));
      assert.equal(res.status, 422, res.text.slice(0, 300));
      const [cause] = res.body.details.causes;
      assert.equal(cause.field, 'spec.list[2]');
      assert.match(cause.message, /400 characters x 503 pattern instructions = 201200, over the limit of 500000 per object \(97600 left after the object's other matches\)$/);
      assert.ok(worstGetMs < boundMs, `an unrelated GET waited ${Math.round(worstGetMs)} ms`);
    });
  });

  describe('schema compilation', () => {
    const manyProperties = (count: number, pattern: (i: number) => string): Record<string, unknown> =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'string', pattern: pattern(i) }]));

    before(async () => {
      // V8 optimizes the server's schema code once it has run hot a few times, once per process:
      // the bound below is on each request's own work, so that happens here first.
      for (let i = 0; i < 3; i++) {
        const warm = await call(server.url, 'POST', crdsPath, exampleCrd({ plural: `warmups${i}`, kind: `Warmup${i}` }, manyProperties(5000, () => '^[a-z]+$')));
        assert.equal(warm.status, 201, warm.text.slice(0, 300));
      }
    });

    test('a CRD of 5,000 patterned properties (13.8 s, then 14.4 s on the first write) is created, and written to, within the freeze bound', async () => {
      // 100 distinct patterns, each on 50 properties: within the compile budget.
      const crd = JSON.stringify(exampleCrd({ plural: 'wides', kind: 'Wide' }, manyProperties(5000, (i) => `^[a-z]+x?${i % 100}$`)));
      const created = await underFreezeProbe(server.url, () => call(server.url, 'POST', crdsPath, crd));
      assert.equal(created.res.status, 201, created.res.text.slice(0, 300));
      assert.ok(created.worstGetMs < created.boundMs, `creating: an unrelated GET waited ${Math.round(created.worstGetMs)} ms`);

      const spec = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, `abc${i % 100}`]));
      const body = JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Wide', metadata: { name: 'w' }, spec });
      const written = await underFreezeProbe(server.url, () => call(server.url, 'POST', '/apis/example.com/v1/namespaces/default/wides', body));
      assert.equal(written.res.status, 201, written.res.text.slice(0, 300));
      assert.ok(written.worstGetMs < written.boundMs, `first write: an unrelated GET waited ${Math.round(written.worstGetMs)} ms`);
      const invalid = await call(server.url, 'PATCH', '/apis/example.com/v1/namespaces/default/wides/w', { spec: { p4999: '-x' } }, { contentType: 'application/merge-patch+json' });
      assert.equal(invalid.status, 422, 'the compiled schema still checks every property');
    });

    test('5,000 distinct patterns are past the compile budget: a 422 at once, naming where the budget ran out', async () => {
      const crd = JSON.stringify(exampleCrd({ plural: 'distincts', kind: 'Distinct' }, manyProperties(5000, (i) => `^[a-z]{1,${(i % 50) + 1}}x${i}$`)));
      const { res, worstGetMs, boundMs } = await underFreezeProbe(server.url, () => call(server.url, 'POST', crdsPath, crd));
      assert.equal(res.status, 422, res.text.slice(0, 300));
      const [cause] = res.body.details.causes;
      assert.match(cause.field, /^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[p\d+\]\.pattern$/);
      assert.match(cause.message, new RegExp(`the schema's distinct patterns are too large to compile within the server's budget: \\d+ patterns of an estimated \\d+ instructions \\(counting 400 per pattern\\) exceed the limit of ${maxPatternCompileCost}$`));
      assert.ok(worstGetMs < boundMs, `an unrelated GET waited ${Math.round(worstGetMs)} ms`);
      assert.equal((await call(server.url, 'GET', `${crdsPath}/distincts.example.com`)).status, 404);
    });

    test('10,000 flat properties are not "nested too deeply": depth counts nesting', async () => {
      const patterned = await call(server.url, 'POST', crdsPath, exampleCrd({ plural: 'flatpatterns', kind: 'FlatPattern' }, manyProperties(10_000, (i) => `^x${i}$`)));
      assert.equal(patterned.status, 422, patterned.text.slice(0, 300));
      assert.doesNotMatch(patterned.body.message, /nested too deeply/);
      assert.match(patterned.body.message, /the schema's distinct patterns are too large to compile within the server's budget/);

      const flat = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, { type: 'integer' }]));
      const created = await call(server.url, 'POST', crdsPath, exampleCrd({ plural: 'flats', kind: 'Flat' }, flat));
      assert.equal(created.status, 201, created.text.slice(0, 300));
      const wrong = await call(server.url, 'POST', '/apis/example.com/v1/namespaces/default/flats', { apiVersion: 'example.com/v1', kind: 'Flat', metadata: { name: 'f' }, spec: { p9999: 'x' } });
      assert.equal(wrong.status, 422);
      assert.equal(wrong.body.details.causes[0].field, 'spec.p9999');
    });
  });

  describe('properties named like Object.prototype members', () => {
    const things = '/apis/example.com/v1/namespaces/default/things';

    before(async () => {
      const properties = { constructor: { type: 'string' }, toString: { type: 'string' }, valueOf: { type: 'string', default: 'v' }, size: { type: 'integer' } };
      assert.equal((await call(server.url, 'POST', crdsPath, exampleCrd({ plural: 'things', kind: 'Thing' }, properties))).status, 201);
      const required = exampleCrd({ plural: 'musts', kind: 'Must' }, { constructor: { type: 'string' } }, { required: ['constructor'] });
      assert.equal((await call(server.url, 'POST', crdsPath, required)).status, 201);
    });

    test('an object that omits them is valid, and a valueOf default is applied', async () => {
      const created = await call(server.url, 'POST', things, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'plain' }, spec: { size: 1 } });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.body.spec, { size: 1, valueOf: 'v' });
    });

    test('they are checked like any property when present, and required when declared so', async () => {
      const wrong = await call(server.url, 'POST', things, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'wrong' }, spec: { constructor: 5, toString: 's' } });
      assert.equal(wrong.status, 422);
      assert.deepEqual(wrong.body.details.causes, [
        { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "integer": spec.constructor in body must be of type string: "integer"', field: 'spec.constructor' },
      ]);
      const missing = await call(server.url, 'POST', '/apis/example.com/v1/namespaces/default/musts', { apiVersion: 'example.com/v1', kind: 'Must', metadata: { name: 'm' }, spec: {} });
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.body.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.constructor' }]);
      const given = await call(server.url, 'POST', '/apis/example.com/v1/namespaces/default/musts', { apiVersion: 'example.com/v1', kind: 'Must', metadata: { name: 'm' }, spec: { constructor: 'c' } });
      assert.equal(given.status, 201, given.text);
    });
  });
});
