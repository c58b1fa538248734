import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatApiVersion,
  identifierKey,
  identifierOf,
  objectKey,
  parseApiVersion,
  parseObjectKey,
  staticMetadataOf,
} from './object.js';
import type { KubeObject } from './object.js';

const namespaced: KubeObject = { apiVersion: 'playlist.grafana.app/v1', kind: 'Playlist', metadata: { name: 'p1', namespace: 'prod' } };
const cluster: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } };

describe('object keys', () => {
  test('objectKey is namespace/name for namespaced objects and name for cluster-scoped ones', () => {
    assert.equal(objectKey(namespaced), 'prod/p1');
    assert.equal(objectKey(cluster), 'prod');
    assert.equal(objectKey({ metadata: { name: 'x', namespace: '' } }), 'x');
  });

  test('identifierKey uses the same format as objectKey', () => {
    assert.equal(identifierKey({ namespace: 'prod', name: 'p1' }), objectKey(namespaced));
    assert.equal(identifierKey({ namespace: '', name: 'prod' }), objectKey(cluster));
  });

  test('parseObjectKey inverts objectKey', () => {
    for (const obj of [namespaced, cluster]) {
      assert.deepEqual(parseObjectKey(objectKey(obj)), identifierOf(obj));
    }
    assert.deepEqual(parseObjectKey('prod/p1'), { namespace: 'prod', name: 'p1' });
    assert.deepEqual(parseObjectKey('prod'), { namespace: '', name: 'prod' });
  });

  test('identifierOf reads namespace (or "") and name', () => {
    assert.deepEqual(identifierOf(namespaced), { namespace: 'prod', name: 'p1' });
    assert.deepEqual(identifierOf(cluster), { namespace: '', name: 'prod' });
  });
});

describe('apiVersion helpers', () => {
  const cases: [apiVersion: string, group: string, version: string][] = [
    ['v1', '', 'v1'],
    ['apps/v1', 'apps', 'v1'],
    ['coordination.k8s.io/v1', 'coordination.k8s.io', 'v1'],
  ];
  for (const [apiVersion, group, version] of cases) {
    test(`${apiVersion} splits into group ${JSON.stringify(group)} and version ${version} and joins back`, () => {
      assert.deepEqual(parseApiVersion(apiVersion), { group, version });
      assert.equal(formatApiVersion(group, version), apiVersion);
    });
  }

  test('staticMetadataOf reads group, version, kind, namespace and name', () => {
    assert.deepEqual(staticMetadataOf(namespaced), { group: 'playlist.grafana.app', version: 'v1', kind: 'Playlist', namespace: 'prod', name: 'p1' });
    assert.deepEqual(staticMetadataOf(cluster), { group: '', version: 'v1', kind: 'Namespace', namespace: '', name: 'prod' });
  });
});
