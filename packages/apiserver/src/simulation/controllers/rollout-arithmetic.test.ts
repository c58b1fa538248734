import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, IntOrString } from '@kubeloop/resource';
import { podTemplateHash, templatesEqualIgnoringHash } from './pod-template-hash.js';
import { maxSurge, maxUnavailable, newReplicaSetReplicas, scaledValue } from './rollout-arithmetic.js';

function rolling(replicas: number, surge: IntOrString, unavailable: IntOrString): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { replicas, selector: {}, template: {}, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } } },
  };
}

describe('rollout arithmetic', () => {
  test('percentages: surge rounds up, unavailable rounds down; both 0 makes unavailable 1', () => {
    assert.deepEqual([maxSurge(rolling(3, '25%', '25%')), maxUnavailable(rolling(3, '25%', '25%'))], [1, 0]);
    assert.deepEqual([maxSurge(rolling(10, '25%', '25%')), maxUnavailable(rolling(10, '25%', '25%'))], [3, 2]);
    assert.deepEqual([maxSurge(rolling(3, 0, '10%')), maxUnavailable(rolling(3, 0, '10%'))], [0, 1]);
    assert.equal(maxUnavailable(rolling(2, 1, 5)), 2, 'never more than the replicas');
    assert.equal(maxUnavailable(rolling(0, 1, 5)), 0);
    const recreate: Deployment = { ...rolling(4, 2, 2), spec: { replicas: 4, selector: {}, template: {}, strategy: { type: 'Recreate' } } };
    assert.deepEqual([maxSurge(recreate), maxUnavailable(recreate), newReplicaSetReplicas(recreate, 4, 0)], [0, 0, 4]);
    assert.throws(() => scaledValue('ten', 10, true), /invalid value for IntOrString/);
  });

  test('the new ReplicaSet grows by the room the surge leaves, never past the replicas', () => {
    const d = rolling(4, 1, 1);
    assert.equal(newReplicaSetReplicas(d, 4, 0), 1);
    assert.equal(newReplicaSetReplicas(d, 5, 1), 1);
    assert.equal(newReplicaSetReplicas(d, 3, 1), 3);
    assert.equal(newReplicaSetReplicas(d, 0, 0), 4);
  });

  test('the pod-template-hash is stable, ignores key order and the hash label, and changes with the template and collisionCount', () => {
    const a = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const reordered = { spec: { containers: [{ image: 'nginx', name: 'c' }] }, metadata: { labels: { app: 'web' } } };
    assert.equal(podTemplateHash(a, undefined), podTemplateHash(reordered, undefined));
    assert.match(podTemplateHash(a, undefined), /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    assert.notEqual(podTemplateHash(a, undefined), podTemplateHash({ ...a, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }, undefined));
    assert.notEqual(podTemplateHash(a, undefined), podTemplateHash(a, 0));
    assert.notEqual(podTemplateHash(a, 0), podTemplateHash(a, 1));
    assert.ok(templatesEqualIgnoringHash(a, { ...a, metadata: { labels: { app: 'web', 'pod-template-hash': 'x' }, annotations: {} } }));
    assert.ok(!templatesEqualIgnoringHash(a, { ...a, metadata: { labels: { app: 'api' } } }));
  });
});
