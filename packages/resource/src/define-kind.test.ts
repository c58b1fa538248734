import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultPlural, defineKind, defineKindFor } from './define-kind.js';
import { isCodecError } from './errors.js';
import type { KubeObject } from './object.js';

interface PlaylistSpec {
  title: string;
}

describe('defaultPlural', () => {
  const cases: [kind: string, plural: string][] = [
    ['Playlist', 'playlists'],
    ['ConfigMap', 'configmaps'],
    ['Policy', 'policies'],
    ['Gateway', 'gateways'],
    ['Status', 'statuses'],
    ['Box', 'boxes'],
    ['Patch', 'patches'],
    ['Mesh', 'meshes'],
    ['Ingress', 'ingresses'],
    ['Key', 'keys'],
  ];
  for (const [kind, plural] of cases) {
    test(`pluralises ${kind} as ${plural}`, () => assert.equal(defaultPlural(kind), plural));
  }
});

describe('defineKind', () => {
  const PlaylistKind = defineKind<PlaylistSpec>({ group: 'playlist.grafana.app', version: 'v0alpha1', kind: 'Playlist' });

  test('fills defaults: plural, singular, namespaced scope, no short names, apiVersion', () => {
    assert.equal(PlaylistKind.plural, 'playlists');
    assert.equal(PlaylistKind.singular, 'playlist');
    assert.equal(PlaylistKind.scope, 'Namespaced');
    assert.deepEqual(PlaylistKind.shortNames, []);
    assert.equal(PlaylistKind.apiVersion, 'playlist.grafana.app/v0alpha1');
  });

  test('keeps explicit names and scope', () => {
    const k = defineKind({ group: '', version: 'v1', kind: 'Thing', plural: 'thingies', singular: 'thingy', scope: 'Cluster', shortNames: ['th'] });
    assert.deepEqual(
      { plural: k.plural, singular: k.singular, scope: k.scope, shortNames: k.shortNames, apiVersion: k.apiVersion },
      { plural: 'thingies', singular: 'thingy', scope: 'Cluster', shortNames: ['th'], apiVersion: 'v1' },
    );
  });

  test('zeroValue is a fresh object with apiVersion, kind and an empty name', () => {
    const a = PlaylistKind.zeroValue();
    assert.deepEqual(a, { apiVersion: 'playlist.grafana.app/v0alpha1', kind: 'Playlist', metadata: { name: '' } });
    a.metadata.name = 'changed';
    assert.equal(PlaylistKind.zeroValue().metadata.name, '');
  });

  test('the kind is frozen', () => {
    assert.ok(Object.isFrozen(PlaylistKind));
    assert.ok(Object.isFrozen(PlaylistKind.shortNames));
  });

  test('codec() is JSON by default and checks the kind; YAML on request; both cached', () => {
    const json = PlaylistKind.codec();
    assert.equal(json.encoding, 'json');
    assert.equal(PlaylistKind.codec('json'), json);
    const yaml = PlaylistKind.codec('yaml');
    assert.equal(yaml.encoding, 'yaml');
    assert.equal(PlaylistKind.codec('yaml'), yaml);

    const obj: KubeObject<PlaylistSpec> = { ...PlaylistKind.zeroValue(), metadata: { name: 'p' }, spec: { title: 't' } };
    assert.deepEqual(json.decode(json.encode(obj)).spec, { title: 't' });
    assert.deepEqual(yaml.decode(yaml.encode(obj)).spec, { title: 't' });
    assert.throws(() => json.decode('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}'), isCodecError);
  });

  test('codec() rejects an unknown encoding', () => {
    assert.throws(() => PlaylistKind.codec('xml' as 'json'), TypeError);
  });

  test('defineKindFor types the kind with an existing object type', () => {
    interface Widget extends KubeObject<{ size: number }> {
      extra?: string;
    }
    const WidgetKind = defineKindFor<Widget>({ group: 'example.com', version: 'v1', kind: 'Widget' });
    const w: Widget = WidgetKind.zeroValue();
    assert.equal(w.kind, 'Widget');
  });

  const invalid: { name: string; def: Parameters<typeof defineKind>[0]; message: RegExp }[] = [
    { name: 'an upper-case group', def: { group: 'Example.com', version: 'v1', kind: 'A' }, message: /invalid group/ },
    { name: 'an empty version', def: { group: '', version: '', kind: 'A' }, message: /invalid version/ },
    { name: 'a version starting with a digit', def: { group: '', version: '1', kind: 'A' }, message: /invalid version/ },
    { name: 'an empty kind', def: { group: '', version: 'v1', kind: '' }, message: /invalid kind/ },
    { name: 'a kind with a dash', def: { group: '', version: 'v1', kind: 'My-Kind' }, message: /invalid kind/ },
    { name: 'an upper-case plural', def: { group: '', version: 'v1', kind: 'A', plural: 'As' }, message: /invalid plural/ },
    { name: 'an invalid short name', def: { group: '', version: 'v1', kind: 'A', shortNames: ['a_b'] }, message: /invalid short name/ },
    { name: 'an unknown scope', def: { group: '', version: 'v1', kind: 'A', scope: 'Global' as 'Cluster' }, message: /invalid scope/ },
  ];
  for (const { name, def, message } of invalid) {
    test(`rejects ${name} at definition time`, () => {
      assert.throws(() => defineKind(def), (err: Error) => err instanceof TypeError && message.test(err.message));
    });
  }
});
