/**
 * From client-side to server-side apply with kubectl, as on kube-apiserver: after `kubectl apply`
 * (client-side: it writes the last-applied annotation, managed by `kubectl-client-side-apply`),
 * `kubectl apply --server-side` and `kubectl diff --server-side` of a changed manifest take over the
 * fields the annotation lists, without `--force-conflicts`; a field another manager changed since
 * is still a conflict.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubectlServer } from './support/kubectl-server.js';

const manifest = (replicas: number, image: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: ${image}
`;

describe('kubectl: client-side apply handed over to server-side apply', () => {
  let fixture: KubectlServer;
  before(async () => {
    fixture = await KubectlServer.start();
  });
  after(() => fixture.stop());

  test('apply --server-side and diff --server-side after a client-side apply take over its fields; a field changed since by another manager still conflicts', async () => {
    assert.match(await fixture.kubectl.ok(['apply', '-f', '-'], { input: manifest(2, 'nginx:1.25') }), /deployment.apps\/web created/);

    const diff = await fixture.kubectl.run(['diff', '--server-side', '-f', '-'], { input: manifest(3, 'nginx:1.26') });
    assert.equal(diff.code, 1, `kubectl diff exits 1 when there is a difference, not an error:\n${diff.stdout}\n${diff.stderr}`);
    assert.match(diff.stdout, /-\s+replicas: 2\n\+\s+replicas: 3/);

    assert.match(await fixture.kubectl.ok(['apply', '--server-side', '-f', '-'], { input: manifest(3, 'nginx:1.26') }), /deployment.apps\/web serverside-applied/);
    const managers = JSON.parse(await fixture.kubectl.ok(['get', 'deployment', 'web', '-o', 'json', '--show-managed-fields'])).metadata.managedFields.map((e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`);
    assert.ok(managers.includes('kubectl/Apply'), managers.join());

    // Another manager changes the image: now a server-side apply of a different image is a real conflict.
    await fixture.kubectl.ok(['set', 'image', 'deployment/web', 'web=nginx:1.27']);
    const refused = await fixture.kubectl.run(['apply', '--server-side', '-f', '-'], { input: manifest(3, 'nginx:1.28') });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /conflict with "kubectl-set"/);
  });
});
