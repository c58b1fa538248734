/**
 * `kubectl apply --server-side` of the same manifest twice changes nothing: the second apply keeps the
 * resourceVersion and sends no watch event (kube-apiserver ignores managedFields timestamps when it
 * decides whether an update is a no-op). Between the two applies the managedFields times are aged by
 * a PUT (with a real change of its own), as if the applies were far apart.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConfigMapKind, HttpTransport } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { KubectlServer } from './support/kubectl-server.js';

const MANIFEST = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: default
data:
  color: blue
`;

describe('kubectl apply --server-side twice', () => {
  let fixture: KubectlServer;
  let transport: HttpTransport;
  let configMaps: Client<ConfigMap>;

  before(async () => {
    fixture = await KubectlServer.start();
    transport = new HttpTransport({ server: fixture.server.url });
    configMaps = new Client(ConfigMapKind, transport);
  });
  after(async () => {
    transport.close();
    await fixture.stop();
  });

  test('the second apply keeps the resourceVersion and the managedFields, and no event goes out', async () => {
    const id = { namespace: 'default', name: 'settings' };
    assert.match(await fixture.kubectl.ok(['apply', '--server-side', '-f', '-'], { input: MANIFEST }), /configmap\/settings serverside-applied/);
    const applied = await configMaps.get(id);
    const aged = await configMaps.update({
      ...applied,
      metadata: { ...applied.metadata, annotations: { aged: 'yes' }, managedFields: applied.metadata.managedFields?.map((e) => ({ ...e, time: '2020-01-01T00:00:00Z' })) },
    });
    const events: string[] = [];
    const watch = await configMaps.watch('default', { resourceVersion: aged.metadata.resourceVersion, fieldSelector: 'metadata.name=settings' });
    const reading = (async () => {
      for await (const event of watch) {
        events.push(`${event.type} ${event.type === 'ERROR' ? '' : (event.object.metadata.labels?.['marker'] ?? '')}`);
        if (event.type !== 'BOOKMARK') break;
      }
    })();

    assert.match(await fixture.kubectl.ok(['apply', '--server-side', '-f', '-'], { input: MANIFEST }), /configmap\/settings serverside-applied/);
    const again = await configMaps.get(id);
    assert.equal(again.metadata.resourceVersion, aged.metadata.resourceVersion);
    assert.deepEqual(again.metadata.managedFields, aged.metadata.managedFields);

    // A real change: the first event the watch sees is this one, not the second apply.
    await configMaps.patch(id, { merge: { metadata: { labels: { marker: 'after' } } } });
    await reading;
    watch.stop();
    assert.deepEqual(events, ['MODIFIED after']);
  });
});
