/**
 * A write whose only effect would be new times on the managedFields entries it rewrites is a no-op,
 * on every write path (kube-apiserver since 1.18): same resourceVersion, same stored times, no watch
 * event. Entries are first aged through a PUT that sets their times to 2020 along with a real change
 * (an annotation: a PUT that changed only the times would itself be a no-op). The times are written
 * with one-second resolution, so aging them is how a test sees the difference without waiting.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { serverForSuite } from '../suite-server.test-helper.js';
import type { SuiteServer } from '../suite-server.test-helper.js';

const AGED = '2020-01-01T00:00:00Z';
const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';

type Managed = KubeObject & { metadata: { managedFields?: { manager: string; time: string }[] } };

/** Sets every managedFields time of the object at `path` to {@link AGED}; returns the stored object. */
async function ageManagedFields(suite: SuiteServer, path: string): Promise<Managed> {
  const current = (await suite.req('GET', path)).body as Managed;
  for (const entry of current.metadata.managedFields ?? []) entry.time = AGED;
  current.metadata.annotations = { ...current.metadata.annotations, aged: String(Date.now()) };
  const aged = await suite.req('PUT', path, current);
  assert.equal(aged.status, 200, aged.text);
  const stored = aged.body as Managed;
  assert.ok((stored.metadata.managedFields ?? []).some((e) => e.time === AGED), `aged: ${JSON.stringify(stored.metadata.managedFields)}`);
  return stored;
}

let markers = 0;

/**
 * The repeated write: answered with the stored object unchanged, and no event before the next real
 * change (the first event a watch from the aged resourceVersion sees is that change).
 */
async function assertNoOp(suite: SuiteServer, options: { collection: string; name: string; repeat: () => Promise<{ status: number; body: unknown; text: string }> }): Promise<void> {
  const path = `${options.collection}/${options.name}`;
  const aged = await ageManagedFields(suite, path);
  const rv = aged.metadata.resourceVersion!;
  const watch = await suite.watch(`${options.collection}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name=${options.name}`).ready();

  const repeated = await options.repeat();
  assert.ok(repeated.status === 200, repeated.text);
  const answered = repeated.body as Managed;
  assert.equal(answered.metadata.resourceVersion, rv, 'the resourceVersion did not move');
  assert.deepEqual(answered.metadata.managedFields, aged.metadata.managedFields, 'the stored times were kept');

  const marker = `real-change-${++markers}`;
  const marked = await suite.req('PATCH', path, { metadata: { labels: { marker } } }, 'application/merge-patch+json');
  assert.equal(marked.status, 200, marked.text);
  const [first] = await watch.waitForEvents(1);
  const object = first!.object as Managed;
  assert.equal(object.metadata.labels?.['marker'], marker, `the first event after the no-op is the real change, not the no-op: ${JSON.stringify(first)}`);
  assert.notEqual(object.metadata.resourceVersion, rv);
  watch.close();
}

function configMap(name: string, data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data };
}

describe('a repeated identical write is a no-op: no new resourceVersion, no event, the managedFields times kept', () => {
  const suite = serverForSuite();

  test('server-side apply', async () => {
    const apply = (): Promise<{ status: number; body: unknown; text: string }> =>
      suite.req('PATCH', `${CM}/applied?fieldManager=applier`, configMap('applied', { k: 'v' }), 'application/apply-patch+yaml');
    assert.equal((await apply()).status, 201);
    await assertNoOp(suite, { collection: CM, name: 'applied', repeat: apply });
  });

  test('update (PUT)', async () => {
    assert.equal((await suite.req('POST', CM, configMap('updated', { k: 'v' }))).status, 201);
    const put = async (): Promise<{ status: number; body: unknown; text: string }> => {
      const current = (await suite.req('GET', `${CM}/updated`)).body as Managed;
      return suite.req('PUT', `${CM}/updated?fieldManager=editor`, { ...current, data: { k: 'w' } });
    };
    assert.equal((await put()).status, 200);
    await assertNoOp(suite, { collection: CM, name: 'updated', repeat: put });
  });

  for (const [kind, contentType, patch] of [
    ['merge patch', 'application/merge-patch+json', { data: { k: 'w' } }],
    ['strategic merge patch', 'application/strategic-merge-patch+json', { data: { k: 'w' } }],
    ['JSON patch', 'application/json-patch+json', [{ op: 'replace', path: '/data/k', value: 'w' }]],
  ] as const) {
    test(kind, async () => {
      const name = kind.toLowerCase().replace(/[^a-z]+/g, '-');
      assert.equal((await suite.req('POST', CM, configMap(name, { k: 'v' }))).status, 201);
      const repeat = (): Promise<{ status: number; body: unknown; text: string }> => suite.req('PATCH', `${CM}/${name}?fieldManager=patcher`, patch, contentType);
      assert.equal((await repeat()).status, 200);
      await assertNoOp(suite, { collection: CM, name, repeat });
    });
  }

  test('the status subresource: PUT and merge patch of /status', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    };
    assert.equal((await suite.req('POST', DEPLOYMENTS, deployment)).status, 201);
    const putStatus = async (): Promise<{ status: number; body: unknown; text: string }> => {
      const current = (await suite.req('GET', `${DEPLOYMENTS}/web`)).body as Managed;
      return suite.req('PUT', `${DEPLOYMENTS}/web/status?fieldManager=status-writer`, { ...current, status: { replicas: 2, readyReplicas: 1 } });
    };
    assert.equal((await putStatus()).status, 200);
    await assertNoOp(suite, { collection: DEPLOYMENTS, name: 'web', repeat: putStatus });

    const patchStatus = (): Promise<{ status: number; body: unknown; text: string }> =>
      suite.req('PATCH', `${DEPLOYMENTS}/web/status?fieldManager=status-patcher`, { status: { readyReplicas: 2 } }, 'application/merge-patch+json');
    assert.equal((await patchStatus()).status, 200);
    await assertNoOp(suite, { collection: DEPLOYMENTS, name: 'web', repeat: patchStatus });
  });

  test('a write that changes something still moves the resourceVersion and the writer’s managedFields time', async () => {
    assert.equal((await suite.req('POST', CM, configMap('changed', { k: 'v' }))).status, 201);
    assert.equal((await suite.req('PATCH', `${CM}/changed?fieldManager=patcher`, { data: { k: 'w' } }, 'application/merge-patch+json')).status, 200);
    const aged = await ageManagedFields(suite, `${CM}/changed`);
    const changed = await suite.req('PATCH', `${CM}/changed?fieldManager=patcher`, { data: { k: 'other' } }, 'application/merge-patch+json');
    const stored = changed.body as Managed;
    assert.notEqual(stored.metadata.resourceVersion, aged.metadata.resourceVersion);
    const patcher = stored.metadata.managedFields?.find((e) => e.manager === 'patcher');
    assert.ok(patcher !== undefined && patcher.time !== AGED, JSON.stringify(stored.metadata.managedFields));
  });
});
