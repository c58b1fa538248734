/**
 * Hostile input over real HTTP: whatever a client sends, the server answers with a 4xx Status in
 * bounded time and goes on serving everyone else.
 */
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from './api-server.js';
import { maxNestingDepth } from './http/json-text.js';
import type { ApiServer } from './api-server.js';
import { call } from './testing/test-client.js';
import { exampleCrd } from './example-crd.test-helper.js';
import type { TestResponse } from './testing/test-client.js';

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

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
      const created = await call(server.url, 'POST', crdsPath, exampleCrd({ plural: 'backtracks', kind: 'Backtrack' }, { word: { type: 'string', pattern: '^(a+)+$' } }));
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
        const res = await call(server.url, 'POST', crdsPath, exampleCrd({ plural: 'lookarounds', kind: 'Lookaround' }, { word: { type: 'string', pattern } }));
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
        exampleCrd({ plural: 'uniques', kind: 'Unique' }, {
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

  describe('field names that are JavaScript built-ins', () => {
    const cms = '/api/v1/namespaces/default/configmaps';
    const builtinNames = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf'];
    const withBuiltins = (value: unknown): string => builtinNames.map((n) => `${JSON.stringify(n)}:${JSON.stringify(value)}`).join(',');
    const warningsOf = (headers: TestResponse['headers']): string => String(headers['warning'] ?? '');

    after(() => {
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined, 'Object.prototype was not polluted');
    });

    test('at the top level of a ConfigMap they are unknown fields: dropped with a warning, 400 under Strict', async () => {
      const body = `{"metadata":{"name":"builtins"},${withBuiltins({ polluted: 'yes' })},"data":{${withBuiltins('kept')}}}`;
      const strict = await call(server.url, 'POST', `${cms}?fieldValidation=Strict`, body);
      assert.equal(strict.status, 400, strict.text);
      assert.match(strict.body.message, /strict decoding error: .*unknown field "__proto__"/);
      for (const name of builtinNames) assert.ok(strict.body.message.includes(`unknown field "${name}"`), `${name}: ${strict.body.message}`);

      const created = await call(server.url, 'POST', cms, body);
      assert.equal(created.status, 201, created.text);
      for (const name of builtinNames) assert.ok(warningsOf(created.headers).includes(`unknown field \\"${name}\\"`), `${name}: ${warningsOf(created.headers)}`);
      const stored = await call(server.url, 'GET', `${cms}/builtins`);
      assert.deepEqual(Object.keys(stored.body).sort(), ['apiVersion', 'data', 'kind', 'metadata']);
      assert.deepEqual(JSON.parse(stored.text).data, JSON.parse(`{${withBuiltins('kept')}}`), 'as data keys they are ordinary keys');
    });

    test('__proto__ and constructor in YAML, JSON patch, merge patch, strategic merge patch and apply are never a 500', async () => {
      const yaml = await call(server.url, 'POST', cms, 'metadata:\n  name: from-yaml\n__proto__:\n  polluted: yes\nconstructor: x\ndata:\n  __proto__: kept\n', {
        contentType: 'application/yaml',
      });
      assert.equal(yaml.status, 201, yaml.text);
      assert.equal(JSON.parse(yaml.text).data.__proto__, 'kept');
      const patches: [string, string][] = [
        ['application/json-patch+json', '[{"op":"add","path":"/__proto__","value":{"polluted":"yes"}},{"op":"add","path":"/data/constructor","value":"c"}]'],
        ['application/merge-patch+json', '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"data":{"__proto__":"p"}}'],
        ['application/strategic-merge-patch+json', '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"data":{"toString":"t"}}'],
        ['application/apply-patch+yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  valueOf: v\n'],
      ];
      for (const [contentType, patch] of patches) {
        const res = await call(server.url, 'PATCH', `${cms}/from-yaml?fieldManager=test`, patch, { contentType });
        assert.equal(res.status, 200, `${contentType}: ${res.text}`);
        assert.equal(Object.hasOwn(JSON.parse(res.text), '__proto__'), false, contentType);
      }
      // Apply refuses any field the kind does not declare, as kube-apiserver does: a 400, not a 500.
      const undeclared = await call(server.url, 'PATCH', `${cms}/from-yaml?fieldManager=test`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\n__proto__:\n  polluted: yes\n', {
        contentType: 'application/apply-patch+yaml',
      });
      assert.equal(undeclared.status, 400, undeclared.text);
      assert.match(undeclared.body.message, /\.__proto__: field not declared in schema/);
      const stored = JSON.parse((await call(server.url, 'GET', `${cms}/from-yaml`)).text);
      assert.deepEqual(stored.data, JSON.parse('{"__proto__":"p","constructor":"c","toString":"t","valueOf":"v"}'));
    });

    test('in a Lease spec, a Secret stringData and custom resource fields they are handled like any other name', async () => {
      const lease = await call(
        server.url,
        'POST',
        '/apis/coordination.k8s.io/v1/namespaces/default/leases',
        `{"metadata":{"name":"builtins"},"spec":{"holderIdentity":"me",${withBuiltins({ polluted: 'yes' })}}}`,
      );
      assert.equal(lease.status, 201, lease.text);
      assert.deepEqual(JSON.parse(lease.text).spec, { holderIdentity: 'me' });
      assert.ok(warningsOf(lease.headers).includes('unknown field \\"spec.__proto__\\"'), warningsOf(lease.headers));

      const secret = await call(server.url, 'POST', '/api/v1/namespaces/default/secrets', `{"metadata":{"name":"builtins"},"stringData":{${withBuiltins('s')}}}`);
      assert.equal(secret.status, 201, secret.text);
      assert.deepEqual(Object.keys(JSON.parse(secret.text).data).sort(), [...builtinNames].sort());

      const crd = exampleCrd({ plural: 'gadgets', kind: 'Gadget' }, { size: { type: 'integer' }, config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } });
      assert.equal((await call(server.url, 'POST', crdsPath, crd)).status, 201);
      const gadget = await call(
        server.url,
        'POST',
        '/apis/example.com/v1/namespaces/default/gadgets',
        `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":1,${withBuiltins({ polluted: 'yes' })},"config":{${withBuiltins('kept')}}}}`,
      );
      assert.equal(gadget.status, 201, gadget.text);
      const spec = JSON.parse(gadget.text).spec;
      assert.deepEqual(Object.keys(spec).sort(), ['config', 'size'], 'pruned where the schema does not declare them');
      assert.deepEqual(spec.config, JSON.parse(`{${withBuiltins('kept')}}`), 'kept where unknown fields are preserved');

      // Server-side apply merges them as ordinary keys too, also when a second manager adds to them.
      const applyPath = '/apis/example.com/v1/namespaces/default/gadgets/applied';
      const applied = 'apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: applied\nspec:\n  config:\n    __proto__:\n      polluted: yes\n    constructor: c\n';
      const first = await call(server.url, 'PATCH', `${applyPath}?fieldManager=one`, applied, { contentType: 'application/apply-patch+yaml' });
      assert.equal(first.status, 201, first.text);
      const more = 'apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: applied\nspec:\n  config:\n    __proto__:\n      other: 1\n';
      const second = await call(server.url, 'PATCH', `${applyPath}?fieldManager=two`, more, { contentType: 'application/apply-patch+yaml' });
      assert.equal(second.status, 200, second.text);
      const stored = JSON.parse((await call(server.url, 'GET', applyPath)).text);
      assert.deepEqual(stored.spec.config, JSON.parse('{"__proto__":{"polluted":"yes","other":1},"constructor":"c"}'));
    });

    test('repeated keys are 400 "duplicate field" under Strict and a warning under Warn, in bodies and patches', async () => {
      const body = '{"metadata":{"name":"dupes","name":"dupes"},"data":{"a":"1","a":"2"},"data":{"b":"3"}}';
      const strict = await call(server.url, 'POST', `${cms}?fieldValidation=Strict`, body);
      assert.equal(strict.status, 400, strict.text);
      assert.equal(
        strict.body.message,
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", duplicate field "data.a", duplicate field "data"',
      );
      const warned = await call(server.url, 'POST', cms, body);
      assert.equal(warned.status, 201, warned.text);
      assert.match(warningsOf(warned.headers), /duplicate field \\"data\\"/);
      assert.deepEqual(warned.body.data, { b: '3' }, 'the last value wins, as in Go');

      const patch = await call(server.url, 'PATCH', `${cms}/dupes?fieldValidation=Strict`, '{"data":{"c":"1","c":"2"}}', { contentType: 'application/merge-patch+json' });
      assert.equal(patch.status, 400, patch.text);
      assert.match(patch.body.message, /strict decoding error: duplicate field "data\.c"/);
      const strategic = await call(server.url, 'PATCH', `${cms}/dupes?fieldValidation=Strict`, '{"metadata":{"labels":{"a":"1","a":"1"}}}', {
        contentType: 'application/strategic-merge-patch+json',
      });
      assert.equal(strategic.status, 400, strategic.text);
      assert.match(strategic.body.message, /strict decoding error: duplicate field "metadata\.labels\.a"/);
    });
  });

  describe('nesting depth and body size', () => {
    const deepCrd = exampleCrd({ plural: 'deeps', kind: 'Deep' }, { config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } });
    const deeps = '/apis/example.com/v1/namespaces/default/deeps';
    /** `{"a":{"a":...}}`, nested so that `{"spec":{"config":<this>}}` is `depth` levels deep. */
    const nested = (depth: number): string => '{"a":'.repeat(depth - 2) + '1' + '}'.repeat(depth - 2);
    const deep = (name: string, depth: number): string => `{"apiVersion":"example.com/v1","kind":"Deep","metadata":{"name":"${name}"},"spec":{"config":${nested(depth)}}}`;

    before(async () => {
      assert.equal((await call(server.url, 'POST', crdsPath, deepCrd)).status, 201);
    });

    test(`bodies and patches nested up to ${maxNestingDepth} levels work; deeper ones are 400, never a stack overflow`, async () => {
      const created = await call(server.url, 'POST', deeps, deep('at-limit', maxNestingDepth));
      assert.equal(created.status, 201, created.text.slice(0, 300));
      assert.equal((await call(server.url, 'GET', `${deeps}/at-limit`)).status, 200);
      const patched = await call(server.url, 'PATCH', `${deeps}/at-limit`, `{"spec":{"config":${nested(maxNestingDepth)}},"metadata":{"labels":{"patched":"yes"}}}`, {
        contentType: 'application/merge-patch+json',
      });
      assert.equal(patched.status, 200, patched.text.slice(0, 300));

      const deployments = '/apis/apps/v1/namespaces/default/deployments';
      const containers = [{ name: 'app', image: 'nginx' }];
      const deployment = { metadata: { name: 'scaled' }, spec: { selector: { matchLabels: { app: 'scaled' } }, template: { metadata: { labels: { app: 'scaled' } }, spec: { containers } } } };
      assert.equal((await call(server.url, 'POST', deployments, JSON.stringify(deployment))).status, 201);

      const tooDeep = maxNestingDepth + 1;
      const attempts: [string, string, string, string][] = [
        ['PATCH', `${deployments}/scaled/scale`, `{"spec":{"x":${nested(100_000)}}}`, 'application/merge-patch+json'],
        ['POST', deeps, deep('too-deep', tooDeep), 'application/json'],
        ['POST', deeps, deep('way-too-deep', 100_000), 'application/json'],
        ['PUT', `${deeps}/at-limit`, deep('at-limit', tooDeep), 'application/json'],
        ['PATCH', `${deeps}/at-limit`, `{"spec":{"config":${nested(tooDeep)}}}`, 'application/merge-patch+json'],
        ['PATCH', `${deeps}/at-limit`, `[{"op":"add","path":"/spec/config/b","value":${nested(tooDeep)}}]`, 'application/json-patch+json'],
        ['PATCH', `${deeps}/at-limit?fieldManager=test`, `apiVersion: example.com/v1\nkind: Deep\nmetadata:\n  name: at-limit\nspec:\n  config: ${'['.repeat(tooDeep)}${']'.repeat(tooDeep)}\n`, 'application/apply-patch+yaml'],
        ['POST', '/api/v1/namespaces/default/configmaps', `metadata:\n  name: deep-yaml\n  annotations: ${'['.repeat(tooDeep)}${']'.repeat(tooDeep)}\n`, 'application/yaml'],
        ['PATCH', '/api/v1/namespaces/default/configmaps/builtins', `{"metadata":{"managedFields":[{"fieldsV1":${nested(tooDeep)}}]}}`, 'application/strategic-merge-patch+json'],
      ];
      for (const [method, path, body, contentType] of attempts) {
        const res = await call(server.url, method, path, body, { contentType });
        assert.equal(res.status, 400, `${method} ${contentType}: ${res.text.slice(0, 300)}`);
        assert.match(res.body.message, /exceeded max depth of 1000/, `${method} ${contentType}`);
      }
      assert.equal((await call(server.url, 'GET', '/healthz')).status, 200);
    });

    test('a 1 KB JSON patch that doubles the object twenty times, or nests it 2,000 levels deep, is refused at once (422), never built or a 500', async () => {
      const created = await call(server.url, 'POST', deeps, deep('doubled', 10));
      assert.equal(created.status, 201, created.text.slice(0, 300));
      const doubling = JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ op: 'copy', from: '/spec', path: `/spec/c${i}` })));
      const doubled = await call(server.url, 'PATCH', `${deeps}/doubled`, doubling, { contentType: 'application/json-patch+json' });
      assert.equal(doubled.status, 422, doubled.text.slice(0, 300));
      assert.match(doubled.body.message, /Unable to copy, the accumulated size increase of copy operations exceeds 3145728/);
      // A 900-level value, then a copy of it into its own deepest child: 1,800 levels.
      const deepening = JSON.stringify([
        { op: 'add', path: '/spec/config/x', value: JSON.parse(nested(902)) as unknown },
        { op: 'copy', from: '/spec/config/x', path: `/spec/config/x${'/a'.repeat(899)}/b` },
      ]);
      const deepened = await call(server.url, 'PATCH', `${deeps}/doubled`, deepening, { contentType: 'application/json-patch+json' });
      assert.equal(deepened.status, 422, deepened.text.slice(0, 300));
      assert.match(deepened.body.message, /nested deeper than 1000 levels/);
      const many = JSON.stringify(Array.from({ length: 10_002 }, () => ({ op: 'test', path: '/kind', value: 'Deep' })));
      const refused = await call(server.url, 'PATCH', `${deeps}/doubled`, many, { contentType: 'application/json-patch+json' });
      assert.equal(refused.status, 413, refused.text.slice(0, 300));
      assert.equal(refused.body.reason, 'RequestEntityTooLarge');
      // Nothing was written.
      const after = await call(server.url, 'GET', `${deeps}/doubled`);
      assert.equal(after.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
    });

    test('a chunked body far over the limit gets 413 while it is still being sent, not a reset', async () => {
      const url = new URL(server.url);
      // Past the 64 MiB the server reads and drops before it cuts the connection.
      const total = 72 * 1024 * 1024;
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: url.hostname, port: url.port, method: 'POST', path: '/api/v1/namespaces/default/configmaps', headers: { 'content-type': 'application/json' } }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        // Once the answer is in, the connection may be cut under the rest of the upload: that is fine.
        req.on('error', reject);
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const write = (): void => {
          while (sent < total) {
            sent += chunk.length;
            if (!req.write(chunk)) {
              req.once('drain', write);
              return;
            }
          }
          req.end();
        };
        write();
      });
      assert.equal(answer.status, 413);
      assert.match(answer.body, /Request entity too large: limit is 3145728/);
    });
  });

  describe('forged and huge resourceVersions', () => {
    const cms = '/api/v1/namespaces/default/configmaps';
    const token = (rv: unknown): string => Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: 'a' })).toString('base64url');

    test('a continue token with an rv beyond 2^53-1, or one this server never reached, is 400, not echoed back', async () => {
      for (const rv of [1e300, 2 ** 53, Number(server.resourceVersion()) + 1000]) {
        const res = await call(server.url, 'GET', `${cms}?limit=1&continue=${token(rv)}`);
        assert.equal(res.status, 400, `rv ${rv}: ${res.text}`);
        assert.match(res.body.message, /continue key is not valid/);
      }
      const first = await call(server.url, 'GET', `${cms}?limit=1`);
      const next = await call(server.url, 'GET', `${cms}?limit=1&continue=${first.body.metadata.continue}`);
      assert.equal(next.status, 200, 'a token the server issued still works');
    });

    test('a list or watch resourceVersion that is not an exact integer is 400', async () => {
      for (const rv of ['99999999999999999999999', '9007199254740993', '1e3', '-1', '12abc']) {
        for (const query of [`resourceVersion=${rv}`, `watch=true&resourceVersion=${rv}`]) {
          const res = await call(server.url, 'GET', `${cms}?${query}`);
          assert.equal(res.status, 400, `${query}: ${res.text}`);
          assert.match(res.body.message, new RegExp(`^resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": (invalid syntax|value out of range)`));
        }
      }
      const largest = await call(server.url, 'GET', `${cms}?resourceVersion=9007199254740991`);
      assert.equal(largest.status, 504, 'the largest exact one is merely newer than the server');
      assert.match(largest.body.message, /Too large resource version: 9007199254740991,/);
    });

    test('a precondition or update resourceVersion that is not an exact integer is 400', async () => {
      assert.equal((await call(server.url, 'POST', cms, { metadata: { name: 'preconditioned' } })).status, 201);
      const huge = '99999999999999999999';
      const deleted = await call(server.url, 'DELETE', `${cms}/preconditioned`, { preconditions: { resourceVersion: huge } });
      assert.equal(deleted.status, 400, deleted.text);
      assert.match(deleted.body.message, /^preconditions\.resourceVersion: Invalid value: "99999999999999999999"/);
      const updated = await call(server.url, 'PUT', `${cms}/preconditioned`, { metadata: { name: 'preconditioned', resourceVersion: '1e300' } });
      assert.equal(updated.status, 400, updated.text);
      assert.match(updated.body.message, /^metadata\.resourceVersion: Invalid value: "1e300"/);
      const patched = await call(server.url, 'PATCH', `${cms}/preconditioned`, { metadata: { resourceVersion: huge } }, { contentType: 'application/merge-patch+json' });
      assert.equal(patched.status, 400, patched.text);
      assert.equal((await call(server.url, 'GET', `${cms}/preconditioned`)).status, 200, 'nothing was deleted');
    });
  });

  describe('requests from web pages', () => {
    const cms = '/api/v1/namespaces/default/configmaps';

    /** A request with exactly these headers (`fetch` would add or refuse some). */
    const raw = (baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> => {
      const url = new URL(baseUrl);
      return new Promise((resolve, reject) => {
        const sent = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
        const req = request({ host: url.hostname, port: url.port, method, path, headers: sent, setHost: headers['host'] === undefined }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    };
    const exists = async (name: string): Promise<boolean> => (await call(server.url, 'GET', `${cms}/${name}`)).status === 200;

    test('a write whose body has no Content-Type is 415, not parsed as JSON', async () => {
      const res = await raw(server.url, 'POST', cms, {}, '{"metadata":{"name":"no-content-type"}}');
      assert.equal(res.status, 415, res.body);
      assert.equal(await exists('no-content-type'), false);
      assert.equal((await call(server.url, 'POST', cms, { metadata: { name: 'deletable' } })).status, 201);
      const del = await raw(server.url, 'DELETE', `${cms}/deletable`, {}, '{"propagationPolicy":"Background"}');
      assert.equal(del.status, 415, del.body);
      assert.equal((await raw(server.url, 'DELETE', `${cms}/deletable`, {})).status, 200, 'a delete without a body needs no Content-Type');
    });

    test('a cross-origin or cross-site browser request is 403 and changes nothing; a same-origin one is served', async () => {
      const body = '{"metadata":{"name":"from-a-page"}}';
      const pageHeaders: Record<string, string>[] = [{ origin: 'http://evil.example' }, { origin: 'null' }, { origin: `https://${new URL(server.url).host}` }, { 'sec-fetch-site': 'cross-site' }];
      for (const headers of pageHeaders) {
        const res = await raw(server.url, 'POST', cms, { 'content-type': 'application/json', ...headers }, body);
        assert.equal(res.status, 403, `${JSON.stringify(headers)}: ${res.body}`);
        assert.equal(JSON.parse(res.body).reason, 'Forbidden');
      }
      assert.equal(await exists('from-a-page'), false);
      const same = await raw(server.url, 'POST', cms, { 'content-type': 'application/json', origin: server.url, 'sec-fetch-site': 'same-origin' }, body);
      assert.equal(same.status, 201, same.body);
    });

    test('a Host that is not an IP address, localhost or an allowed host is 403 (DNS rebinding)', async () => {
      const port = new URL(server.url).port;
      const rebound = await raw(server.url, 'GET', cms, { host: `attacker.example:${port}` });
      assert.equal(rebound.status, 403, rebound.body);
      assert.match(JSON.parse(rebound.body).message, /the Host "attacker\.example:\d+" is not one this server answers to/);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, `192.168.1.20:${port}`]) {
        assert.equal((await raw(server.url, 'GET', cms, { host })).status, 200, host);
      }

      const withExtra = await startApiServer({ allowedHosts: ['dev.example'] });
      try {
        const extraPort = new URL(withExtra.url).port;
        assert.equal((await raw(withExtra.url, 'GET', cms, { host: `dev.example:${extraPort}` })).status, 200);
        assert.equal((await raw(withExtra.url, 'GET', cms, { host: `other.example:${extraPort}` })).status, 403);
      } finally {
        await withExtra.stop();
      }
    });
  });
});
