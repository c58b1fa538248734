/**
 * The typed built-in kinds of @kubeloop/resource against the embedded API server: a Deployment and a
 * Service written and read through `createClient`-style typed clients (their fields typed: this file
 * compiles only if they are), and every kind the server serves (its discovery) has a `Kind` constant.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEnv } from '@kubeloop/apiserver/testing';
import type { TestEnv } from '@kubeloop/apiserver/testing';
import { DeploymentKind, ServiceKind, builtinKinds, createClient, loadKubeConfig } from '@kubeloop/resource';
import type { Deployment, Service, V1Container } from '@kubeloop/resource';

describe('typed built-in kinds', () => {
  let env: TestEnv;
  before(async () => {
    env = await startTestEnv();
  });
  after(() => env.stop());

  test('a Deployment and a Service through typed clients: spec.template.spec.containers, ports, quantities and status are typed', async () => {
    const kubeConfig = loadKubeConfig({ kubeconfigPath: env.kubeconfigPath });
    const deployments = createClient(DeploymentKind, kubeConfig);
    const services = createClient(ServiceKind, kubeConfig);
    const container: V1Container = { name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { limits: { cpu: 1, memory: '256Mi' } } };
    const deployment: Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container] } } },
    };
    // @ts-expect-error a container needs a name (a required field of the API type)
    const nameless: V1Container = { image: 'nginx' };
    assert.equal(nameless.name, undefined);
    const created = await deployments.create(deployment);
    const containers = created.spec?.template.spec?.containers ?? [];
    assert.deepEqual(
      containers.map((c) => [c.name, c.image, c.resources?.limits?.['cpu']]),
      [['web', 'nginx:1.27', '1']],
    );
    const replicas: number | undefined = created.spec?.replicas;
    assert.equal(replicas, 2);
    // @ts-expect-error replicas is a number
    const wrong: string | undefined = created.spec?.replicas;
    assert.equal(typeof wrong, 'number');

    const service: Service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] },
    };
    const stored = await services.create(service);
    assert.deepEqual(stored.spec?.ports?.map((p) => [p.port, p.targetPort]), [[80, 'http']]);
    const read = await deployments.get({ namespace: 'default', name: 'web' });
    assert.equal(read.metadata.uid, created.metadata.uid);
  });

  test('every kind the server serves has a Kind constant with its group, version, plural and scope', async () => {
    const served: string[] = [];
    const groupVersions = ['v1'];
    const apis = (await (await fetch(`${env.url}/apis`)).json()) as { groups: { versions: { groupVersion: string }[] }[] };
    for (const group of apis.groups) for (const v of group.versions) groupVersions.push(v.groupVersion);
    for (const gv of groupVersions) {
      const list = (await (await fetch(`${env.url}/${gv === 'v1' ? 'api/v1' : `apis/${gv}`}`)).json()) as { resources: { name: string; kind: string; namespaced: boolean }[] };
      for (const r of list.resources) if (!r.name.includes('/')) served.push(`${gv} ${r.kind} ${r.name} ${r.namespaced ? 'Namespaced' : 'Cluster'}`);
    }
    const constants = new Set(builtinKinds.map((k) => `${k.apiVersion} ${k.kind} ${k.plural} ${k.scope}`));
    const missing = served.filter((s) => !constants.has(s));
    assert.deepEqual(missing, [], 'served kinds without a constant');
    assert.ok(served.length >= 35, `the server serves ${served.length} kinds`);
  });
});
