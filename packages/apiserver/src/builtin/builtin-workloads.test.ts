import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../testing/test-client.js';
import { serverForSuite } from '../suite-server.test-helper.js';

const deployments = '/apis/apps/v1/namespaces/default/deployments';
const services = '/api/v1/namespaces/default/services';

function deployment(name: string, labels: Record<string, string> = { app: name }, selector: Record<string, string> = labels): Record<string, unknown> {
  return {
    metadata: { name },
    spec: {
      selector: { matchLabels: selector },
      template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 8080 }], env: [{ name: 'A', value: '1' }] }] } },
    },
  };
}

describe('built-in workloads, services and pods', () => {
  const { req } = serverForSuite();

  test('a Deployment is created with the real defaults and generation 1, and its status cannot be set on create', async () => {
    const body = deployment('web');
    body.status = { replicas: 5 };
    const res = await req('POST', deployments, body);
    assert.equal(res.status, 201, res.text);
    const spec = res.body.spec;
    assert.equal(spec.replicas, 1);
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.progressDeadlineSeconds, 600);
    const pod = spec.template.spec;
    assert.equal(pod.restartPolicy, 'Always');
    assert.equal(pod.dnsPolicy, 'ClusterFirst');
    assert.equal(pod.containers[0].imagePullPolicy, 'IfNotPresent');
    assert.equal(pod.containers[0].ports[0].protocol, 'TCP');
    assert.equal(res.body.metadata.generation, 1);
    assert.equal(res.body.status, undefined);
  });

  test("a Deployment whose selector does not match its template's labels is 422 with the real message", async () => {
    const res = await req('POST', deployments, deployment('mismatch', { app: 'a' }, { app: 'b' }));
    assert.equal(res.status, 422, res.text);
    assert.equal(
      res.body.message,
      'Deployment.apps "mismatch" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
    );
    assert.equal(res.body.details.causes[0].field, 'spec.template.metadata.labels');
  });

  test('required fields of the published schema are checked: a Deployment without selector, a container without image', async () => {
    const body = deployment('noselector') as { spec: Record<string, unknown> };
    delete body.spec.selector;
    const res = await req('POST', deployments, body);
    assert.equal(res.status, 422, res.text);
    assert.match(res.body.message, /spec\.selector: Required value/);
    const noImage = deployment('noimage') as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } };
    delete noImage.spec.template.spec.containers[0]!.image;
    const res2 = await req('POST', deployments, noImage);
    assert.equal(res2.status, 422, res2.text);
    assert.match(res2.body.message, /spec\.template\.spec\.containers\[0\]\.image: Required value/);
  });

  test('a field of the wrong JSON type is 400 in Go words; unknown fields are dropped with a warning', async () => {
    const body = deployment('typed') as { spec: Record<string, unknown> };
    body.spec.replicas = 'three';
    const res = await req('POST', deployments, body);
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field Deployment.spec.replicas of type int32');
    const extra = deployment('extra') as { spec: Record<string, unknown> };
    extra.spec.bogus = true;
    const res2 = await req('POST', deployments, extra);
    assert.equal(res2.status, 201);
    assert.equal(res2.body.spec.bogus, undefined);
    assert.match(String(res2.headers.warning), /unknown field \\"spec.bogus\\"/);
    const nested = deployment('nested') as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } };
    nested.spec.template.spec.containers[0]!.bogus = 1;
    const res3 = await req('POST', deployments, nested);
    assert.equal(res3.status, 201);
    assert.match(String(res3.headers.warning), /unknown field \\"spec.template.spec.containers\[0\].bogus\\"/);
  });

  test('the selector of a Deployment is immutable; a spec change bumps generation, a status write does not', async () => {
    await req('POST', deployments, deployment('immutable'));
    const moved = await req('PATCH', `${deployments}/immutable`, { spec: { selector: { matchLabels: { app: 'other' } }, template: { metadata: { labels: { app: 'other' } } } } }, 'application/merge-patch+json');
    assert.equal(moved.status, 422, moved.text);
    assert.match(moved.body.message, /spec\.selector: Invalid value: .*: field is immutable/);
    const scaled = await req('PATCH', `${deployments}/immutable`, { spec: { replicas: 4 } }, 'application/merge-patch+json');
    assert.equal(scaled.body.metadata.generation, 2);
    const status = await req('PATCH', `${deployments}/immutable/status`, { status: { replicas: 4, readyReplicas: 4, observedGeneration: 2 } }, 'application/merge-patch+json');
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.metadata.generation, 2);
    assert.equal(status.body.status.readyReplicas, 4);
  });

  test('strategic merge patch merges containers by name and their ports and env by their keys', async () => {
    await req('POST', deployments, deployment('smp'));
    const patch = { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.28', env: [{ name: 'B', value: '2' }] }, { name: 'sidecar', image: 'busybox:1' }] } } } };
    const res = await req('PATCH', `${deployments}/smp`, patch, 'application/strategic-merge-patch+json');
    assert.equal(res.status, 200, res.text);
    const containers = res.body.spec.template.spec.containers;
    assert.deepEqual(
      containers.map((c: { name: string; image: string }) => [c.name, c.image]),
      [
        ['app', 'nginx:1.28'],
        ['sidecar', 'busybox:1'],
      ],
    );
    assert.deepEqual(containers[0].ports, [{ containerPort: 8080, protocol: 'TCP' }], 'ports kept: the list was merged, not replaced');
    assert.deepEqual(
      containers[0].env.map((e: { name: string }) => e.name),
      ['A', 'B'],
    );
  });

  test('the scale subresource reads and writes spec.replicas (GET, PUT, merge patch), with the selector and 409 on a stale resourceVersion', async () => {
    await req('POST', deployments, deployment('scaled'));
    const scale = await req('GET', `${deployments}/scaled/scale`);
    assert.equal(scale.status, 200, scale.text);
    assert.equal(scale.body.kind, 'Scale');
    assert.equal(scale.body.apiVersion, 'autoscaling/v1');
    assert.deepEqual(scale.body.spec, { replicas: 1 });
    assert.deepEqual(scale.body.status, { replicas: 0, selector: 'app=scaled' });
    const put = await req('PUT', `${deployments}/scaled/scale`, { ...scale.body, spec: { replicas: 3 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.spec.replicas, 3);
    const stale = await req('PUT', `${deployments}/scaled/scale`, { ...scale.body, spec: { replicas: 4 } });
    assert.equal(stale.status, 409);
    const patched = await req('PATCH', `${deployments}/scaled/scale`, { spec: { replicas: 5 } }, 'application/merge-patch+json');
    assert.equal(patched.status, 200, patched.text);
    const after = await req('GET', `${deployments}/scaled`);
    assert.equal(after.body.spec.replicas, 5);
    const negative = await req('PATCH', `${deployments}/scaled/scale`, { spec: { replicas: -1 } }, 'application/merge-patch+json');
    assert.equal(negative.status, 422);
    assert.equal((await req('GET', '/apis/apps/v1/namespaces/default/daemonsets/none/scale')).status, 404, 'DaemonSets have no scale subresource');
  });

  test('discovery lists the new kinds with their status and scale subresources, and OpenAPI describes them with patch merge keys', async () => {
    const apps = await req('GET', '/apis/apps/v1');
    const names = apps.body.resources.map((r: { name: string }) => r.name);
    assert.deepEqual(names.slice(0, 3), ['deployments', 'deployments/status', 'deployments/scale']);
    const scaleEntry = apps.body.resources.find((r: { name: string }) => r.name === 'deployments/scale');
    assert.deepEqual([scaleEntry.group, scaleEntry.version, scaleEntry.kind], ['autoscaling', 'v1', 'Scale']);
    const core = await req('GET', '/api/v1');
    const pods = core.body.resources.find((r: { name: string }) => r.name === 'pods');
    assert.deepEqual([pods.kind, pods.namespaced, pods.shortNames, pods.categories], ['Pod', true, ['po'], ['all']]);
    const root = await req('GET', '/openapi/v3');
    const url = root.body.paths['apis/apps/v1'].serverRelativeURL as string;
    const doc = await req('GET', url);
    const schemas = doc.body.components.schemas;
    assert.deepEqual(schemas['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind'], [{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    const containers = schemas.V1PodSpec.properties.containers;
    assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(containers['x-kubernetes-patch-strategy'], 'merge');
    assert.deepEqual(schemas.V1DeploymentSpec.required, ['selector', 'template']);
    assert.ok(doc.body.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']);
  });

  test('/openapi/v2 serves the same kinds as one Swagger 2.0 document for older clients', async () => {
    const res = await req('GET', '/openapi/v2');
    assert.equal(res.status, 200);
    assert.equal(res.body.swagger, '2.0');
    const definitions = res.body.definitions;
    assert.deepEqual(definitions['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind'], [{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    assert.equal(definitions.V1DeploymentSpec.properties.template.allOf[0].$ref, '#/definitions/V1PodTemplateSpec');
    assert.equal(definitions.V1PodSpec.properties.containers['x-kubernetes-patch-merge-key'], 'name');
    const patch = res.body.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    assert.ok(patch.consumes.includes('application/strategic-merge-patch+json'));
    assert.ok(patch.parameters.some((p: { name: string; type?: string }) => p.name === 'fieldValidation' && p.type === 'string'));
    assert.ok(definitions['io.k8s.api.core.v1.ConfigMap'], 'the hand-written kinds are there too');
  });

  test('a Service gets a cluster IP that survives a PUT leaving it out and may not be changed', async () => {
    const created = await req('POST', services, { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } });
    assert.equal(created.status, 201, created.text);
    const spec = created.body.spec;
    assert.match(spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    assert.deepEqual(spec.clusterIPs, [spec.clusterIP]);
    assert.equal(spec.type, 'ClusterIP');
    assert.deepEqual(spec.ports, [{ port: 80, targetPort: 8080, protocol: 'TCP' }]);
    const put = await req('PUT', `${services}/web`, { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 81 }] } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.spec.clusterIP, spec.clusterIP);
    const changed = await req('PATCH', `${services}/web`, { spec: { clusterIP: '10.96.0.99' } }, 'application/merge-patch+json');
    assert.equal(changed.status, 422);
    assert.match(changed.body.message, /spec\.clusterIPs\[0\]: Invalid value: .*: may not change once set/);
    const noPorts = await req('POST', services, { metadata: { name: 'noports' }, spec: { selector: { app: 'x' } } });
    assert.equal(noPorts.status, 422);
    assert.match(noPorts.body.message, /spec\.ports: Required value/);
  });

  test('a Pod starts Pending with its QoS class (nothing schedules it), and its spec may change only in images', async () => {
    const pods = '/api/v1/namespaces/default/pods';
    const created = await req('POST', pods, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox:1', resources: { limits: { cpu: 1, memory: '64Mi' } } }] } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.status, { phase: 'Pending', qosClass: 'Guaranteed' });
    assert.equal(created.body.spec.containers[0].resources.limits.cpu, '1', 'a numeric quantity is kept as text');
    const image = await req('PATCH', `${pods}/p`, { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } }, 'application/strategic-merge-patch+json');
    assert.equal(image.status, 200, image.text);
    const other = await req('PATCH', `${pods}/p`, { spec: { containers: [{ name: 'c', command: ['sh'] }] } }, 'application/strategic-merge-patch+json');
    assert.equal(other.status, 422);
    assert.match(other.body.message, /spec: Forbidden: pod updates may not change fields other than/);
  });

  test('a Job gets the controller-uid selector and pod labels, and a template restartPolicy of Always is refused', async () => {
    const jobs = '/apis/batch/v1/namespaces/default/jobs';
    const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } };
    const created = await req('POST', jobs, { metadata: { name: 'j' }, spec: { template } });
    assert.equal(created.status, 201, created.text);
    const uid = created.body.metadata.uid;
    assert.deepEqual(created.body.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    assert.equal(created.body.spec.template.metadata.labels['job-name'], 'j');
    assert.equal(created.body.spec.backoffLimit, 6);
    const always = await req('POST', jobs, { metadata: { name: 'j2' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:1' }] } } } });
    assert.equal(always.status, 422);
    assert.match(always.body.message, /spec\.template\.spec\.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"/);
  });

  test('deleting a namespace deletes its Deployments and Services; PUT .../finalize writes spec.finalizers only', async () => {
    assert.equal((await req('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } })).status, 201);
    assert.equal((await req('POST', '/apis/apps/v1/namespaces/doomed/deployments', deployment('d'))).status, 201);
    const finalized = await req('PUT', '/api/v1/namespaces/doomed/finalize', { metadata: { name: 'doomed', labels: { ignored: 'yes' } }, spec: { finalizers: [] } });
    assert.equal(finalized.status, 200, finalized.text);
    assert.deepEqual(finalized.body.spec, { finalizers: [] });
    assert.equal(finalized.body.metadata.labels, undefined, 'finalize writes only spec.finalizers');
    assert.equal((await req('DELETE', '/api/v1/namespaces/doomed')).status, 200);
    await waitFor(async () => (await req('GET', '/api/v1/namespaces/doomed')).status === 404, { message: 'namespace gone' });
    assert.equal((await req('GET', '/apis/apps/v1/namespaces/doomed/deployments/d')).status, 404);
  });
});
