/** The demo's options: `--in-cluster` (what the container runs with, see the Dockerfile), its defaults from the pod's environment, sharding, and their errors. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDemoOptions } from './cli-options.js';

const pod = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443', POD_NAME: 'playlist-operator-7d9f-x2k4q', POD_NAMESPACE: 'playlist-operator-system' };

describe('parseDemoOptions --in-cluster', () => {
  test('takes the lease namespace and identity from POD_NAMESPACE and POD_NAME, and no kubeconfig', () => {
    const options = parseDemoOptions(['--in-cluster', '--no-samples'], { ...pod, KUBECONFIG: '/somewhere/kubeconfig' });
    assert.equal(options.inCluster, true);
    assert.equal(options.kubeconfig, undefined);
    assert.equal(options.kubeconfigFrom, undefined);
    assert.equal(options.namespace, 'playlist-operator-system');
    assert.equal(options.identity, 'playlist-operator-7d9f-x2k4q');
  });

  test('flags still win over the pod environment', () => {
    const options = parseDemoOptions(['--in-cluster', '--namespace', 'ops', '--identity', 'a'], pod);
    assert.equal(options.namespace, 'ops');
    assert.equal(options.identity, 'a');
  });

  test('without --in-cluster the pod variables are not read', () => {
    const options = parseDemoOptions([], pod);
    assert.equal(options.inCluster, false);
    assert.equal(options.namespace, 'default');
    assert.notEqual(options.identity, pod.POD_NAME);
  });

  test('outside a pod, or together with --kubeconfig, it is an error', () => {
    assert.throws(() => parseDemoOptions(['--in-cluster'], {}), /^Error: --in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set \(not in a pod\)$/);
    assert.throws(() => parseDemoOptions(['--in-cluster', '--kubeconfig', 'k'], pod), /^Error: --in-cluster and --kubeconfig exclude each other$/);
  });
});

describe('parseDemoOptions --sharded and --replicas', () => {
  test('leader election by default; --sharded joins a ring; --replicas above 1 implies it', () => {
    assert.deepEqual([parseDemoOptions([], {}).sharded, parseDemoOptions([], {}).replicas], [false, 1]);
    assert.equal(parseDemoOptions(['--sharded'], {}).sharded, true);
    const three = parseDemoOptions(['--replicas', '3'], {});
    assert.deepEqual([three.sharded, three.replicas], [true, 3]);
    // What the Dockerfile runs: one sharded replica per pod.
    const inPod = parseDemoOptions(['--in-cluster', '--sharded', '--no-samples'], pod);
    assert.deepEqual([inPod.sharded, inPod.replicas, inPod.identity], [true, 1, pod.POD_NAME]);
  });

  test('--replicas must be at least 1, and is not for a pod (the Deployment has the replicas)', () => {
    assert.throws(() => parseDemoOptions(['--replicas', '0'], {}), /^Error: --replicas must be at least 1$/);
    assert.throws(() => parseDemoOptions(['--replicas', 'two'], {}), /^Error: --replicas must be a non-negative integer, got "two"$/);
    assert.throws(() => parseDemoOptions(['--in-cluster', '--replicas', '3'], pod), /--replicas starts processes on this machine: in a pod, set the Deployment replicas and pass --sharded/);
  });
});
