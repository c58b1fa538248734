/** The rendered objects by replica count: the Deployment's replicas and what the Lease Role grants. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DeployConfig } from '../project/project-config.js';
import { manifestObjects } from './render-manifests.js';

interface Rendered {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  spec?: { replicas?: number; template?: { spec: { volumes?: unknown[]; containers: { volumeMounts?: unknown[]; securityContext: { readOnlyRootFilesystem: boolean } }[] } } };
}

function render(replicas: number): Rendered[] {
  const deploy: DeployConfig = { name: 'shop-operator', namespace: 'shop-system', image: 'shop-operator:1', replicas };
  return manifestObjects({ crds: [], deploy, owns: [], reads: [] }) as Rendered[];
}

function only(objects: Rendered[], kind: string): Rendered {
  const found = objects.filter((o) => o.kind === kind);
  assert.equal(found.length, 1, `one ${kind}`);
  return found[0]!;
}

describe('manifestObjects by replica count', () => {
  test('one replica: the Lease Role is what leader election needs, without delete', () => {
    const objects = render(1);
    assert.equal(only(objects, 'Deployment').spec?.replicas, 1);
    const role = only(objects, 'Role');
    assert.deepEqual(role.metadata, { name: 'shop-operator-leader-election', namespace: 'shop-system', labels: { 'app.kubernetes.io/name': 'shop-operator', 'app.kubernetes.io/managed-by': 'kubeloop' } });
    assert.deepEqual(role.rules, [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'] }]);
  });

  test('more than one replica: N replicas, and the same Role also grants delete (a shard member deletes its Lease when it stops)', () => {
    for (const replicas of [2, 3, 16]) {
      const objects = render(replicas);
      assert.equal(only(objects, 'Deployment').spec?.replicas, replicas);
      const role = only(objects, 'Role');
      assert.equal(role.metadata.name, 'shop-operator-leader-election');
      assert.deepEqual(role.rules, [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }]);
      // Leases are granted in the operator's namespace only, never cluster-wide.
      assert.ok(!JSON.stringify(only(objects, 'ClusterRole').rules).includes('leases'));
    }
  });

  test('the container keeps a read-only root filesystem and gets a writable /tmp', () => {
    const pod = only(render(1), 'Deployment').spec!.template!.spec;
    assert.equal(pod.containers[0]!.securityContext.readOnlyRootFilesystem, true);
    assert.deepEqual(pod.containers[0]!.volumeMounts, [{ name: 'tmp', mountPath: '/tmp' }]);
    assert.deepEqual(pod.volumes, [{ name: 'tmp', emptyDir: {} }]);
  });
});
