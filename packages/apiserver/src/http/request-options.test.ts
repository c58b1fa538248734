import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForSuite } from '../suite-server.test-helper.js';

const cms = '/api/v1/namespaces/default/configmaps';
const secrets = '/api/v1/namespaces/default/secrets';

describe('dryRun values and data size limits', () => {
  const suite = serverForSuite();
  const { req } = suite;

  test('dryRun=All answers as a write would and stores nothing', async () => {
    const rv = suite.server.resourceVersion();
    const res = await req('POST', `${cms}?dryRun=All`, { metadata: { name: 'dry' }, data: { a: 'b' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.metadata.name, 'dry');
    assert.equal((await req('GET', `${cms}/dry`)).status, 404);
    assert.equal(suite.server.resourceVersion(), rv);
  });

  test('any other dryRun value is refused with 422 on the verb’s options kind, and nothing is stored', async () => {
    const create = await req('POST', `${cms}?dryRun=true`, { metadata: { name: 'notdry' } });
    assert.equal(create.status, 422, create.text);
    assert.equal(create.body.message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"true"}: supported values: "All"');
    assert.equal((await req('GET', `${cms}/notdry`)).status, 404);
    await req('POST', cms, { metadata: { name: 'kept' } });
    const patch = await req('PATCH', `${cms}/kept?dryRun=Server`, { data: { a: 'b' } }, 'application/merge-patch+json');
    assert.equal(patch.status, 422);
    assert.match(patch.body.message, /^PatchOptions\.meta\.k8s\.io "" is invalid: dryRun: Unsupported value/);
    const del = await req('DELETE', `${cms}/kept`, { dryRun: ['Everything'] });
    assert.equal(del.status, 422);
    assert.match(del.body.message, /^DeleteOptions\.meta\.k8s\.io "" is invalid/);
    assert.equal((await req('GET', `${cms}/kept`)).status, 200);
  });

  test('a ConfigMap or Secret holding more than 1 MiB is 422 Too long', async () => {
    const big = 'x'.repeat(1024 * 1024 + 1);
    const cm = await req('POST', cms, { metadata: { name: 'big' }, data: { k: big } });
    assert.equal(cm.status, 422, cm.text.slice(0, 300));
    assert.equal(cm.body.message, 'ConfigMap "big" is invalid: []: Too long: must have at most 1048576 bytes');
    const secret = await req('POST', secrets, { metadata: { name: 'big' }, data: { k: Buffer.from(big).toString('base64') } });
    assert.equal(secret.status, 422);
    assert.equal(secret.body.message, 'Secret "big" is invalid: data: Too long: must have at most 1048576 bytes');
    const fits = await req('POST', cms, { metadata: { name: 'fits' }, data: { k: 'x'.repeat(1024 * 1024) } });
    assert.equal(fits.status, 201, 'values of exactly 1 MiB fit (keys do not count)');
    const over = await req('POST', cms, { metadata: { name: 'over' }, data: { k: 'x'.repeat(1024 * 1024 - 1) }, binaryData: { b: Buffer.from('yz').toString('base64') } });
    assert.equal(over.status, 422, 'data and binaryData count together, binaryData decoded');
  });
});
