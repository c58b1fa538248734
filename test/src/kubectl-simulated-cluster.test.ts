/**
 * The real kubectl against a fully simulated cluster (controllers and kubelet, on a virtual clock the
 * test moves): `rollout status` returns once the Pods run, `get pods -o wide` shows them on simulated
 * Nodes with their IPs, `get endpointslices` and `get endpoints` list the Service's ready Pods, and
 * `scale` removes a Pod. Nothing in this test writes a status.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '@kubeloop/resource';
import { advanceSimulation } from '@kubeloop/apiserver/testing';
import { KubectlServer } from './support/kubectl-server.js';

const manifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - {name: http, containerPort: 8080}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: http}
`;

describe('kubectl against the simulated cluster', { timeout: 120_000 }, () => {
  let env: KubectlServer;
  const clock = new VirtualClock(Date.now());
  before(async () => {
    env = await KubectlServer.start({ simulate: { clock } });
  });
  after(() => env.stop());

  test('rollout status, get pods -o wide, get endpointslices and endpoints, scale', async () => {
    await env.kubectl.ok(['apply', '-f', '-'], { input: manifest });
    await advanceSimulation(env, clock, 5_000);
    assert.match(await env.kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=20s']), /deployment "web" successfully rolled out/);

    const wide = await env.kubectl.ok(['get', 'pods', '-o', 'wide', '-l', 'app=web']);
    const rows = wide.trim().split('\n').slice(1);
    assert.equal(rows.length, 3, wide);
    for (const row of rows) assert.match(row, /^web-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+node-\d\s+<none>\s+<none>$/);

    const slices = await env.kubectl.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
    assert.match(slices, /^web-[a-z0-9]{5}\s+IPv4\s+8080\s+10\.244\.\d+\.\d+,10\.244\.\d+\.\d+,10\.244\.\d+\.\d+\s+\S+$/m);
    assert.match(await env.kubectl.ok(['get', 'endpoints', 'web']), /^web\s+10\.244\.\d+\.\d+:8080,10\.244\.\d+\.\d+:8080,10\.244\.\d+\.\d+:8080\s+\S+$/m);

    await env.kubectl.ok(['scale', 'deployment/web', '--replicas=1']);
    await advanceSimulation(env, clock, 31_000); // the removed Pods' 30 s grace period
    const after = await env.kubectl.ok(['get', 'pods', '-l', 'app=web', '-o', 'name']);
    assert.equal(after.trim().split('\n').length, 1, after);
  });
});
