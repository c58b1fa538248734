/**
 * The real kubectl against the embedded API server's built-in workload kinds: `create deployment`
 * (a protobuf body), `expose`, `scale`, `get all`, `cluster-info`, `apply` of a Deployment, and
 * `rollout status`, which waits for status that only a controller writes: no controller runs
 * here (as with envtest), so the test writes the status a Deployment controller would.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kubectl } from './support/kubectl.js';
import { KubectlServer } from './support/kubectl-server.js';
import { rawRequest } from './support/raw-api.js';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown>; spec: Record<string, unknown> };

describe('kubectl with Deployments, Services and other built-in kinds', { timeout: 120_000 }, () => {
  let env: KubectlServer;
  let kubectl: Kubectl;

  before(async () => {
    env = await KubectlServer.start();
    kubectl = env.kubectl;
  });

  after(() => env.stop());

  test('create deployment, expose, scale: the objects are stored with their defaults', async () => {
    assert.match(await kubectl.ok(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2', '--port=8080']), /deployment\.apps\/web created/);
    assert.match(await kubectl.ok(['expose', 'deployment', 'web', '--port=80', '--target-port=8080']), /service\/web exposed/);
    assert.match(await kubectl.ok(['scale', 'deployment', 'web', '--replicas=3']), /deployment\.apps\/web scaled/);
    const deployment = await kubectl.json<Obj>(['get', 'deployment', 'web']);
    assert.equal(deployment.spec['replicas'], 3);
    assert.deepEqual(deployment.spec['selector'], { matchLabels: { app: 'web' } });
    assert.equal(deployment.metadata['generation'], 2);
    const service = await kubectl.json<Obj>(['get', 'service', 'web']);
    assert.deepEqual(service.spec['selector'], { app: 'web' });
    assert.deepEqual(service.spec['ports'], [{ port: 80, protocol: 'TCP', targetPort: 8080 }]);
    assert.match(String(service.spec['clusterIP']), /^10\.\d+\.\d+\.\d+$/);
  });

  test('get all lists the Deployment and the Service with their columns', async () => {
    const out = await kubectl.ok(['get', 'all']);
    assert.match(out, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/m);
    assert.match(out, /^service\/web\s+ClusterIP\s+10\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s+\d+s$/m);
    assert.match(out, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
    assert.match(out, /^deployment\.apps\/web\s+0\/3\s+0\s+0\s+\d+s$/m);
  });

  test('cluster-info names the server', async () => {
    const out = await kubectl.ok(['cluster-info']);
    assert.ok(out.includes(`Kubernetes control plane is running at ${env.server.url}`), out);
  });

  test('rollout status times out with no controller, and succeeds once the status a controller would write is there', async () => {
    const waiting = await kubectl.run(['rollout', 'status', 'deployment/web', '--timeout=2s']);
    assert.notEqual(waiting.code, 0);
    // No controller observes the spec: kubectl waits for status.observedGeneration.
    assert.match(waiting.stdout + waiting.stderr, /Waiting for deployment spec update to be observed/);
    const status = { observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 };
    const res = await rawRequest(env.server.url, 'PATCH', '/apis/apps/v1/namespaces/default/deployments/web/status', { body: { status }, contentType: 'application/merge-patch+json' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=10s']), /deployment "web" successfully rolled out/);
    assert.match(await kubectl.ok(['get', 'deployment', 'web']), /^web\s+3\/3\s+3\s+3\s+\d+s$/m);
  });

  test('apply of a Deployment manifest, then a re-apply with a changed image, merges by container name', async () => {
    const manifest = (image: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: api
        image: ${image}
        ports: [{containerPort: 9000}]
`;
    assert.match(await kubectl.ok(['apply', '-f', '-'], { input: manifest('api:1') }), /deployment\.apps\/api created/);
    assert.match(await kubectl.ok(['apply', '-f', '-'], { input: manifest('api:2') }), /deployment\.apps\/api configured/);
    const deployment = await kubectl.json<Obj>(['get', 'deployment', 'api']);
    const containers = (deployment.spec['template'] as { spec: { containers: Record<string, unknown>[] } }).spec.containers;
    assert.equal(containers.length, 1);
    assert.equal(containers[0]!['image'], 'api:2');
    assert.deepEqual(containers[0]!['ports'], [{ containerPort: 9000, protocol: 'TCP' }]);
  });

  test('a Deployment whose selector does not match its labels is refused with the server message', async () => {
    const bad = `apiVersion: apps/v1
kind: Deployment
metadata: {name: bad}
spec:
  selector: {matchLabels: {app: one}}
  template:
    metadata: {labels: {app: two}}
    spec: {containers: [{name: c, image: busybox}]}
`;
    const res = await kubectl.run(['apply', '-f', '-'], { input: bad });
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /`selector` does not match template `labels`/);
  });

  test('over TLS with a bearer token, kubectl verifies the server with the kubeconfig CA; a wrong token is refused', async () => {
    const secured = await KubectlServer.start({ tls: true, token: 'kubectl-token' });
    try {
      const client = secured.kubectl;
      assert.match(await client.ok(['create', 'deployment', 'tls', '--image=nginx']), /deployment\.apps\/tls created/);
      assert.match(await client.ok(['get', 'deployments']), /^tls\s+0\/1\s+/m);
      const denied = await client.run(['get', 'deployments', '--token=wrong']);
      assert.notEqual(denied.code, 0);
      assert.match(denied.stderr, /Unauthorized|must be logged in/);
    } finally {
      await secured.stop();
    }
  });

  test('apply --server-side: a second manager conflicts on an owned field, --force-conflicts takes it', async () => {
    const config = (value: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: "${value}"\n`;
    assert.match(await kubectl.ok(['apply', '--server-side', '-f', '-'], { input: config('1') }), /configmap\/ssa serverside-applied/);
    const conflict = await kubectl.run(['apply', '--server-side', '--field-manager=other', '-f', '-'], { input: config('2') });
    assert.notEqual(conflict.code, 0);
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.data\.a/);
    assert.match(await kubectl.ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'], { input: config('2') }), /serverside-applied/);
    const cm = await kubectl.json<{ data: Record<string, string>; metadata: { managedFields: { manager: string }[] } }>(['get', 'configmap', 'ssa', '--show-managed-fields']);
    assert.deepEqual(cm.data, { a: '2' });
    assert.deepEqual(cm.metadata.managedFields.map((e) => e.manager), ['other']);
  });

  test('create job, cronjob, role, rolebinding, serviceaccount and get them back', async () => {
    await kubectl.ok(['create', 'job', 'once', '--image=busybox', '--', 'echo', 'hi']);
    await kubectl.ok(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *']);
    await kubectl.ok(['create', 'role', 'reader', '--verb=get,list', '--resource=pods']);
    await kubectl.ok(['create', 'rolebinding', 'reader', '--role=reader', '--serviceaccount=default:robot']);
    await kubectl.ok(['create', 'serviceaccount', 'robot']);
    const out = await kubectl.ok(['get', 'jobs,cronjobs,roles,rolebindings,serviceaccounts']);
    assert.match(out, /^job\.batch\/once\s+Running\s+0\/1\s+/m);
    assert.match(out, /^cronjob\.batch\/tick\s+\*\/5 \* \* \* \*\s+<none>\s+False\s+0\s+<none>/m);
    assert.match(out, /^role\.rbac\.authorization\.k8s\.io\/reader\s+/m);
    assert.match(out, /^rolebinding\.rbac\.authorization\.k8s\.io\/reader\s+Role\/reader\s+/m);
    assert.match(out, /^serviceaccount\/robot\s+0\s+/m);
    const role = await kubectl.json<Record<string, unknown>>(['get', 'role', 'reader']);
    assert.deepEqual(role['rules'], [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]);
  });
});
