import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinKinds } from './builtin-kinds.js';
import { builtinWorkloadKinds } from './builtin-workloads.generated.js';
import { ConfigMapKind } from './config-map.js';
import type { ConfigMap } from './config-map.js';
import { CustomResourceDefinitionKind, kindFromCustomResourceDefinition } from './custom-resource-definition.js';
import type { CustomResourceDefinition } from './custom-resource-definition.js';
import { EventKind } from './event.js';
import { LeaseKind } from './lease.js';
import type { Lease } from './lease.js';
import { NamespaceKind } from './namespace.js';
import { SecretKind } from './secret.js';
import { isCodecError } from '../errors.js';

describe('built-in kinds', () => {
  const expected = [
    { kind: NamespaceKind, apiVersion: 'v1', plural: 'namespaces', scope: 'Cluster', shortNames: ['ns'] },
    { kind: ConfigMapKind, apiVersion: 'v1', plural: 'configmaps', scope: 'Namespaced', shortNames: ['cm'] },
    { kind: SecretKind, apiVersion: 'v1', plural: 'secrets', scope: 'Namespaced', shortNames: [] },
    { kind: EventKind, apiVersion: 'v1', plural: 'events', scope: 'Namespaced', shortNames: ['ev'] },
    { kind: LeaseKind, apiVersion: 'coordination.k8s.io/v1', plural: 'leases', scope: 'Namespaced', shortNames: [] },
    {
      kind: CustomResourceDefinitionKind,
      apiVersion: 'apiextensions.k8s.io/v1',
      plural: 'customresourcedefinitions',
      scope: 'Cluster',
      shortNames: ['crd', 'crds'],
    },
  ];

  test('builtinKinds lists the six hand-typed kinds first, then the generated ones, each once', () => {
    assert.deepEqual(
      builtinKinds.slice(0, 6).map((k) => k.kind),
      ['Namespace', 'ConfigMap', 'Secret', 'Event', 'Lease', 'CustomResourceDefinition'],
    );
    assert.deepEqual(builtinKinds.slice(6), [...builtinWorkloadKinds]);
    const ids = builtinKinds.map((k) => `${k.apiVersion} ${k.plural}`);
    assert.equal(new Set(ids).size, ids.length, 'no kind twice');
  });

  for (const { kind, apiVersion, plural, scope, shortNames } of expected) {
    test(`${kind.kind} is ${apiVersion} ${plural}, ${scope}`, () => {
      assert.deepEqual(
        { apiVersion: kind.apiVersion, plural: kind.plural, scope: kind.scope, shortNames: [...kind.shortNames], singular: kind.singular },
        { apiVersion, plural, scope, shortNames, singular: kind.kind.toLowerCase() },
      );
      assert.deepEqual(kind.zeroValue(), { apiVersion, kind: kind.kind, metadata: { name: '' } });
    });
  }

  test('a ConfigMap decodes with its top-level data fields typed', () => {
    const cm: ConfigMap = ConfigMapKind.codec().decode('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"},"immutable":true}');
    assert.deepEqual(cm.data, { k: 'v' });
    assert.equal(cm.immutable, true);
  });

  test('a Lease codec refuses a ConfigMap', () => {
    assert.throws(() => LeaseKind.codec().decode('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}'), isCodecError);
    const lease: Lease = LeaseKind.codec('yaml').decode(
      'apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: leader\nspec:\n  holderIdentity: a\n  leaseDurationSeconds: 15\n',
    );
    assert.equal(lease.spec?.holderIdentity, 'a');
  });
});

describe('kindFromCustomResourceDefinition', () => {
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'playlists.playlist.grafana.app' },
    spec: {
      group: 'playlist.grafana.app',
      names: { plural: 'playlists', singular: 'playlist', kind: 'Playlist', shortNames: ['pl'] },
      scope: 'Namespaced',
      versions: [
        { name: 'v0alpha1', served: true, storage: false },
        { name: 'v1', served: true, storage: true, subresources: { status: {} } },
      ],
    },
  };

  test('defaults to the storage version', () => {
    const kind = kindFromCustomResourceDefinition(crd);
    assert.equal(kind.apiVersion, 'playlist.grafana.app/v1');
    assert.equal(kind.plural, 'playlists');
    assert.deepEqual(kind.shortNames, ['pl']);
  });

  test('takes another version on request', () => {
    assert.equal(kindFromCustomResourceDefinition(crd, { version: 'v0alpha1' }).version, 'v0alpha1');
  });

  test('rejects an unknown version and a CRD without spec', () => {
    assert.throws(() => kindFromCustomResourceDefinition(crd, { version: 'v2' }), /no version v2/);
    const { spec: _spec, ...noSpec } = crd;
    assert.throws(() => kindFromCustomResourceDefinition(noSpec as CustomResourceDefinition), /has no spec/);
  });
});
