/**
 * The real kubectl against the embedded API server: discovery, OpenAPI-backed validation, CRDs,
 * watches, every patch type, finalizer-aware delete (namespaces included), built-ins, and `get`'s columns (served as
 * Tables, also on `get -w`). kubectl must be installed (the
 * suite fails, never skips, without it).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { fileURLToPath } from 'node:url';
import type { ApiServer } from '@kubeloop/apiserver';
import type { Kubectl } from './support/kubectl.js';
import { KubectlServer } from './support/kubectl-server.js';
import { rawRequest } from './support/raw-api.js';
import { waitFor } from './support/wait-for.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

type Obj = Record<string, unknown> & { metadata: Record<string, unknown>; spec?: Record<string, unknown> };

describe('kubectl against the embedded API server', { timeout: 180_000 }, () => {
  let env: KubectlServer;
  let server: ApiServer;
  let kubectl: Kubectl;

  before(async () => {
    env = await KubectlServer.start();
    ({ server, kubectl } = env);
  });

  after(() => env.stop());

  const widgetPath = '/apis/example.com/v1/namespaces/default/widgets';

  test('api-resources lists the built-in resources', async () => {
    const out = await kubectl.ok(['api-resources']);
    for (const line of [/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m]) {
      assert.match(out, line);
    }
    assert.match(out, /^customresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false\s+CustomResourceDefinition$/m);
  });

  test('apply -f creates a CRD and wait --for condition=Established returns', async () => {
    assert.match(await kubectl.ok(['apply', '-f', fixture('widget-crd.yaml')]), /customresourcedefinition\.apiextensions\.k8s\.io\/widgets\.example\.com created/);
    assert.match(
      await kubectl.ok(['wait', '--for', 'condition=Established', 'crd/widgets.example.com', '--timeout=20s']),
      /customresourcedefinition\.apiextensions\.k8s\.io\/widgets\.example\.com condition met/,
    );
  });

  test('api-resources shows the new custom resource', async () => {
    assert.match(await kubectl.ok(['api-resources', '--api-group=example.com']), /^widgets\s+wd\s+example\.com\/v1\s+true\s+Widget$/m);
  });

  test('apply -f creates a custom resource with default (strict) validation', async () => {
    assert.match(await kubectl.ok(['apply', '-f', fixture('widget.yaml')]), /widget\.example\.com\/w1 created/);
    assert.match(await kubectl.ok(['apply', '-f', fixture('widget.yaml')]), /widget\.example\.com\/w1 unchanged/);
  });

  test('get -o json returns the stored object', async () => {
    const w = await kubectl.json<Obj>(['get', 'widget', 'w1', '-n', 'default']);
    assert.equal(w['apiVersion'], 'example.com/v1');
    assert.equal(w['kind'], 'Widget');
    assert.deepEqual(w.spec, { replicas: 2, color: 'red', ports: [{ name: 'http', port: 8080 }] });
    assert.deepEqual(w.metadata['labels'], { app: 'demo' });
    assert.match(String(w.metadata['uid']), /^[0-9a-f-]{36}$/);
    assert.match(String(w.metadata['resourceVersion']), /^\d+$/);
    assert.equal(w.metadata['generation'], 1);
  });

  test('get -w prints a change another client makes', async () => {
    const watch = env.spawn(['get', 'widgets', '-n', 'default', '-w', '-o', 'jsonpath={.metadata.name}={.spec.replicas}{"\\n"}']);
    await watch.waitForOutput('w1=2\n');
    const patched = await rawRequest(server.url, 'PATCH', `${widgetPath}/w1`, {
      body: { spec: { replicas: 7 } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(patched.status, 200);
    await watch.waitForOutput('w1=7\n');
    await watch.kill();
  });

  test('get -w with the default output prints the columns once, then a row per change', async () => {
    const watch = env.spawn(['get', 'widgets', '-n', 'default', '-w']);
    await watch.waitForOutput(/^NAME\s+REPLICAS\nw1\s+7\n/);
    const patched = await rawRequest(server.url, 'PATCH', `${widgetPath}/w1`, {
      body: { spec: { replicas: 8 } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(patched.status, 200);
    await watch.waitForOutput(/^w1\s+8$/m);
    await watch.kill();
    assert.equal(watch.stdout.match(/NAME/g)?.length, 1, `one header line: ${watch.stdout}`);
    assert.equal(watch.stderr, '');
  });

  test('patch --type=merge changes the object', async () => {
    assert.match(await kubectl.ok(['patch', 'widget', 'w1', '-n', 'default', '--type=merge', '-p', '{"spec":{"replicas":3}}']), /widget\.example\.com\/w1 patched/);
    assert.equal(await kubectl.ok(['get', 'widget', 'w1', '-n', 'default', '-o', 'jsonpath={.spec.replicas}']), '3');
  });

  test('patch --type=json changes the object', async () => {
    const ops = JSON.stringify([
      { op: 'test', path: '/spec/color', value: 'red' },
      { op: 'replace', path: '/spec/color', value: 'blue' },
    ]);
    assert.match(await kubectl.ok(['patch', 'widget', 'w1', '-n', 'default', '--type=json', '-p', ops]), /widget\.example\.com\/w1 patched/);
    assert.equal(await kubectl.ok(['get', 'widget', 'w1', '-n', 'default', '-o', 'jsonpath={.spec.color}']), 'blue');
  });

  test('a failed json patch test is refused and changes nothing', async () => {
    const ops = JSON.stringify([{ op: 'test', path: '/spec/color', value: 'red' }, { op: 'replace', path: '/spec/replicas', value: 9 }]);
    const result = await kubectl.run(['patch', 'widget', 'w1', '-n', 'default', '--type=json', '-p', ops]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /testing value \/spec\/color failed/);
    assert.equal(await kubectl.ok(['get', 'widget', 'w1', '-n', 'default', '-o', 'jsonpath={.spec.replicas}']), '3');
  });

  test('a default (strategic merge) patch of a custom resource fails with the real 415 message', async () => {
    const result = await kubectl.run(['patch', 'widget', 'w1', '-n', 'default', '-p', '{"spec":{"replicas":4}}']);
    assert.notEqual(result.code, 0);
    assert.match(
      result.stderr,
      /the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/,
    );
  });

  test('an invalid custom resource is rejected naming the field', async () => {
    const result = await kubectl.run(['apply', '-f', fixture('widget-invalid.yaml')]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /The Widget "bad" is invalid: spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string"/);
    assert.equal((await kubectl.run(['get', 'widget', 'bad', '-n', 'default'])).code, 1);
  });

  test('an unknown field is refused by the default strict validation, naming the field', async () => {
    const result = await kubectl.run(['apply', '-f', fixture('widget-unknown-field.yaml')]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /unknown field "spec\.bogus"/);
  });

  test('delete waits for the finalizer another client removes, then completes', async () => {
    await kubectl.ok(['patch', 'widget', 'w1', '-n', 'default', '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}']);
    const deleting = env.spawn(['delete', 'widget', 'w1', '-n', 'default', '--timeout=60s']);
    const marked = await waitFor(
      async () => {
        const got = await rawRequest<Obj>(server.url, 'GET', `${widgetPath}/w1`);
        return got.status === 200 && got.body.metadata['deletionTimestamp'] !== undefined ? got.body : undefined;
      },
      { timeoutMs: 15_000, what: 'w1 to get a deletionTimestamp' },
    );
    assert.deepEqual(marked.metadata['finalizers'], ['example.com/hold']);
    assert.equal(deleting.exit, undefined, 'kubectl delete must still be waiting');

    const removed = await rawRequest(server.url, 'PATCH', `${widgetPath}/w1`, {
      body: [
        { op: 'test', path: '/metadata/finalizers/0', value: 'example.com/hold' },
        { op: 'remove', path: '/metadata/finalizers/0' },
      ],
      contentType: 'application/json-patch+json',
    });
    assert.equal(removed.status, 200);
    const exit = await deleting.waitForExit(30_000);
    assert.equal(exit.code, 0, deleting.stderr);
    assert.match(deleting.stdout, /widget\.example\.com "w1" deleted/);
    const gone = await kubectl.run(['get', 'widget', 'w1', '-n', 'default']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /Error from server \(NotFound\): widgets\.example\.com "w1" not found/);
  });

  test('delete namespace waits while a finalizer holds its content, then returns once the namespace is gone', async () => {
    await kubectl.ok(['create', 'namespace', 'doomed']);
    for (const name of ['a', 'b']) await kubectl.ok(['create', 'configmap', name, '-n', 'doomed', '--from-literal=k=v']);
    await kubectl.ok(['patch', 'configmap', 'b', '-n', 'doomed', '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}']);
    const deleting = env.spawn(['delete', 'namespace', 'doomed', '--timeout=60s']);
    const held = await waitFor(
      async () => {
        const got = await rawRequest<Obj>(server.url, 'GET', '/api/v1/namespaces/doomed');
        const conditions = (got.body['status'] as { conditions?: { type: string; status: string; message: string }[] } | undefined)?.conditions ?? [];
        return conditions.find((c) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True');
      },
      { timeoutMs: 15_000, what: 'the namespace to report the held configmap' },
    );
    assert.equal(held.message, 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances');
    assert.equal(deleting.exit, undefined, 'kubectl delete must still be waiting');
    assert.equal((await kubectl.run(['get', 'configmap', 'a', '-n', 'doomed'])).code, 1, 'the free configmap is gone');

    await kubectl.ok(['patch', 'configmap', 'b', '-n', 'doomed', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    const exit = await deleting.waitForExit(30_000);
    assert.equal(exit.code, 0, deleting.stderr);
    assert.match(deleting.stdout, /namespace "doomed" deleted/);
    const gone = await kubectl.run(['get', 'namespace', 'doomed']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /Error from server \(NotFound\): namespaces "doomed" not found/);
  });

  test('create configmap creates it and a default (strategic merge) patch merges into it', async () => {
    assert.match(await kubectl.ok(['create', 'configmap', 'cm1', '-n', 'default', '--from-literal=a=b']), /configmap\/cm1 created/);
    assert.match(await kubectl.ok(['patch', 'configmap', 'cm1', '-n', 'default', '-p', '{"data":{"c":"d"}}']), /configmap\/cm1 patched/);
    const cm = await kubectl.json<Obj>(['get', 'configmap', 'cm1', '-n', 'default']);
    assert.deepEqual(cm['data'], { a: 'b', c: 'd' });
    const again = await kubectl.run(['create', 'configmap', 'cm1', '-n', 'default', '--from-literal=a=b']);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /configmaps "cm1" already exists/);
  });

  test('get configmaps shows the DATA column: keys counted by the server', async () => {
    const out = await kubectl.ok(['get', 'cm', '-n', 'default']);
    assert.match(out, /^NAME\s+DATA\s+AGE\n/);
    assert.match(out, /^cm1\s+2\s+\d+s$/m);
  });

  test("get prints kube-apiserver's columns for namespaces, secrets, leases, events and CRDs", async () => {
    await kubectl.ok(['create', 'secret', 'generic', 's1', '-n', 'default', '--from-literal=a=b', '--from-literal=c=d']);
    await kubectl.ok(['apply', '-f', fixture('lease.yaml')]);
    const event = await rawRequest(server.url, 'POST', '/api/v1/namespaces/default/events', {
      body: {
        metadata: { name: 'w1.tour' },
        involvedObject: { kind: 'Widget', name: 'w1', namespace: 'default' },
        reason: 'Scaled',
        message: 'replicas changed',
        type: 'Normal',
        firstTimestamp: new Date(Date.now() - 30_000).toISOString().replace(/\.\d+Z$/, 'Z'),
      },
    });
    assert.equal(event.status, 201);
    const cases: [string[], RegExp, RegExp][] = [
      [['get', 'ns'], /^NAME\s+STATUS\s+AGE\n/, /^default\s+Active\s+\S+$/m],
      [['get', 'secrets', '-n', 'default'], /^NAME\s+TYPE\s+DATA\s+AGE\n/, /^s1\s+Opaque\s+2\s+\S+$/m],
      [['get', 'leases', '-n', 'default'], /^NAME\s+HOLDER\s+AGE\n/, /^kubectl-lease\s+node-a\s+\S+$/m],
      [['get', 'events', '-n', 'default'], /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/, /^\d+s\s+Normal\s+Scaled\s+widget\/w1\s+replicas changed$/m],
      [['get', 'crd'], /^NAME\s+CREATED AT\n/, /^widgets\.example\.com\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m],
    ];
    for (const [args, header, row] of cases) {
      const out = await kubectl.ok(args);
      assert.match(out, header, `${args.join(' ')}:\n${out}`);
      assert.match(out, row, `${args.join(' ')}:\n${out}`);
    }
    await kubectl.ok(['delete', 'lease', 'kubectl-lease', '-n', 'default']);
  });

  test('get shows the printer columns of a custom resource, wide ones with -o wide', async () => {
    const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: playlists.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: playlists, singular: playlist, kind: Playlist}
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      additionalPrinterColumns:
        - {name: Title, type: string, jsonPath: .spec.title}
        - {name: Items, type: integer, jsonPath: .spec.itemCount}
        - {name: Interval, type: string, jsonPath: .spec.interval, priority: 1}
        - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
        - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                title: {type: string}
                itemCount: {type: integer}
                interval: {type: string}
            status:
              type: object
              properties:
                conditions:
                  type: array
                  items:
                    type: object
                    properties:
                      type: {type: string}
                      status: {type: string}
`;
    await kubectl.ok(['apply', '-f', '-'], { input: crd });
    await kubectl.ok(['wait', '--for', 'condition=Established', 'crd/playlists.example.com', '--timeout=20s']);
    const playlists = `
apiVersion: example.com/v1
kind: Playlist
metadata: {name: morning, namespace: default}
spec: {title: Morning news, itemCount: 3, interval: 5m}
---
apiVersion: example.com/v1
kind: Playlist
metadata: {name: empty, namespace: default}
spec: {title: Empty}
`;
    await kubectl.ok(['apply', '-f', '-'], { input: playlists });
    const ready = await rawRequest(server.url, 'PATCH', '/apis/example.com/v1/namespaces/default/playlists/morning/status', {
      body: { status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }] } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(ready.status, 200);

    const out = await kubectl.ok(['get', 'playlists', '-n', 'default']);
    assert.match(out, /^NAME\s+TITLE\s+ITEMS\s+READY\s+AGE\n/);
    assert.match(out, /^morning\s+Morning news\s+3\s+True\s+\d+s$/m);
    assert.match(out, /^empty\s+Empty\s+\d+s$/m, 'missing values are empty cells');
    const wide = await kubectl.ok(['get', 'playlist', 'morning', '-n', 'default', '-o', 'wide']);
    assert.match(wide, /^NAME\s+TITLE\s+ITEMS\s+INTERVAL\s+READY\s+AGE\n/);
    assert.match(wide, /^morning\s+Morning news\s+3\s+5m\s+True\s+\d+s$/m);
    const sorted = await kubectl.ok(['get', 'playlists', '-n', 'default', '--sort-by=.spec.title', '--no-headers']);
    assert.deepEqual(sorted.trim().split('\n').map((line) => line.split(/\s+/)[0]), ['empty', 'morning']);
    await kubectl.ok(['delete', 'crd', 'playlists.example.com']);
  });

  test('a Lease makes the round trip with MicroTime intact', async () => {
    assert.match(await kubectl.ok(['apply', '-f', fixture('lease.yaml')]), /lease\.coordination\.k8s\.io\/kubectl-lease created/);
    const lease = await kubectl.json<Obj>(['get', 'lease', 'kubectl-lease', '-n', 'default']);
    assert.equal(lease.spec?.['holderIdentity'], 'node-a');
    assert.equal(lease.spec?.['renewTime'], '2024-05-01T10:00:05.123456Z');
    assert.equal(lease.metadata['generation'], undefined, 'Leases have no generation');
    await kubectl.ok(['patch', 'lease', 'kubectl-lease', '-n', 'default', '--type=merge', '-p', '{"spec":{"holderIdentity":"node-b","leaseTransitions":1}}']);
    assert.equal(await kubectl.ok(['get', 'lease', 'kubectl-lease', '-n', 'default', '-o', 'jsonpath={.spec.holderIdentity}/{.spec.leaseTransitions}']), 'node-b/1');
    assert.match(await kubectl.ok(['delete', 'lease', 'kubectl-lease', '-n', 'default']), /lease\.coordination\.k8s\.io "kubectl-lease" deleted/);
  });

  test('a Lease with a millisecond MicroTime is refused as the real server does', async () => {
    const lease = [
      'apiVersion: coordination.k8s.io/v1',
      'kind: Lease',
      'metadata: {name: millis, namespace: default}',
      'spec: {holderIdentity: a, renewTime: "2024-05-01T10:00:05.123Z"}',
    ].join('\n');
    const result = await kubectl.run(['apply', '-f', '-'], { input: lease });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /BadRequest/);
    assert.match(result.stderr, /cannot parse/);
  });

  test('deleting the CRD deletes its objects and its discovery entry', async () => {
    await kubectl.ok(['apply', '-f', fixture('widget.yaml')]);
    assert.match(await kubectl.ok(['delete', 'crd', 'widgets.example.com']), /customresourcedefinition\.apiextensions\.k8s\.io "widgets\.example\.com" deleted/);
    const res = await rawRequest(server.url, 'GET', widgetPath);
    assert.equal(res.status, 404);
    await waitFor(async () => !/^widgets\s/m.test(await kubectl.ok(['api-resources', '--api-group=example.com'])), {
      timeoutMs: 10_000,
      what: 'widgets to leave discovery',
    });
  });
});

