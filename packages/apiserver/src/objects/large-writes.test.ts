/**
 * Large writes (bodies or stored objects from `largeBodyChars`) are computed in the server's worker
 * thread and written in steps: the answers are those of small writes, errors included.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { call } from '../testing/test-client.js';
import { largeBodyChars } from './write-options.js';

const deployments = '/apis/apps/v1/namespaces/default/deployments';

function deployment(name: string, containers: number, image: string, replicas?: number): Record<string, unknown> {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      ...(replicas !== undefined && { replicas }),
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: Array.from({ length: containers }, (_, i) => ({ name: `c${i}`, image })) } },
    },
  };
}

const apply = (server: ApiServer, name: string, body: Record<string, unknown>, manager: string): ReturnType<typeof call> =>
  call(server.url, 'PATCH', `${deployments}/${name}?fieldManager=${manager}`, JSON.stringify(body), { contentType: 'application/apply-patch+yaml' });

describe('large writes', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer();
  });
  after(() => server.stop());

  test('an apply conflict found in the worker is the same 409 as a small one', async () => {
    for (const [name, containers] of [['small', 2], ['large', 3_000]] as const) {
      const created = await apply(server, name, deployment(name, containers, 'nginx:1', 2), 'owner');
      assert.equal(created.status, 201, created.text.slice(0, 300));
      const body = deployment(name, containers, 'nginx:1', 5);
      assert.equal(JSON.stringify(body).length >= largeBodyChars, name === 'large', `${name}: the body is ${name}`);
      const refused = await apply(server, name, body, 'other');
      assert.equal(refused.status, 409, refused.text.slice(0, 300));
      assert.equal(refused.body.message, 'Apply failed with 1 conflict: conflict with "owner": .spec.replicas', name);
      assert.deepEqual(refused.body.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "owner"', field: '.spec.replicas' }], name);
    }
  });

  test('a bad strategic merge patch of a large object is the same 400 as of a small one', async () => {
    for (const name of ['small', 'large']) {
      const res = await call(server.url, 'PATCH', `${deployments}/${name}`, JSON.stringify({ $patch: 'delete' }), { contentType: 'application/strategic-merge-patch+json' });
      assert.equal(res.status, 400, `${name}: ${res.text.slice(0, 300)}`);
      assert.match(res.body.message, /cannot delete the whole object/, name);
    }
  });

  test("a small patch of a large object records the Update's managedFields as a small object's", async () => {
    const entries: unknown[] = [];
    for (const name of ['small', 'large']) {
      const patched = await call(server.url, 'PATCH', `${deployments}/${name}?fieldManager=scaler`, JSON.stringify({ spec: { replicas: 7 } }), {
        contentType: 'application/strategic-merge-patch+json',
      });
      assert.equal(patched.status, 200, `${name}: ${patched.text.slice(0, 300)}`);
      assert.equal(patched.body.spec.replicas, 7);
      const managed = patched.body.metadata.managedFields as { manager: string; operation: string; fieldsV1: unknown }[];
      const scaler = managed.find((e) => e.manager === 'scaler');
      assert.deepEqual(scaler && { operation: scaler.operation, fieldsV1: scaler.fieldsV1 }, { operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }, name);
      // The owner no longer owns the replicas it had applied.
      const owner = managed.find((e) => e.manager === 'owner')?.fieldsV1 as { 'f:spec': Record<string, unknown> };
      assert.equal(owner['f:spec']['f:replicas'], undefined, name);
      entries.push(managed.map((e) => e.manager).sort());
    }
    assert.deepEqual(entries[0], entries[1]);
  });
});
