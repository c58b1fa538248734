import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlaylistCatalogue } from './catalogue.js';
import { PlaylistKind } from './playlist.js';
import type { Playlist } from './playlist.js';
import { configMapNameOf, parseDurationMs, renderConfigMap, specProblem } from './playlist-reconciler.js';

const sample: Playlist = {
  apiVersion: PlaylistKind.apiVersion,
  kind: PlaylistKind.kind,
  metadata: { name: 'standup', namespace: 'team-a', uid: 'u-1', generation: 3 },
  spec: { title: 'Stand-up', interval: '1m30s', items: [{ type: 'dashboard_by_uid', value: 'abc' }] },
};

describe('playlist spec checks', () => {
  test('Go-style durations are parsed into milliseconds', () => {
    assert.equal(parseDurationMs('30s'), 30_000);
    assert.equal(parseDurationMs('1h30m'), 5_400_000);
    assert.equal(parseDurationMs('1.5s'), 1_500);
    assert.equal(parseDurationMs('250ms'), 250);
    assert.equal(parseDurationMs('5 minutes'), undefined);
    assert.equal(parseDurationMs(''), undefined);
  });

  test('a spec the schema accepts can still be invalid, and the problem is named', () => {
    assert.equal(specProblem(sample.spec), undefined);
    assert.match(specProblem({ ...sample.spec!, interval: '500ms' }) ?? '', /shorter than 1s/);
    assert.match(specProblem({ ...sample.spec!, items: [] }) ?? '', /at least one item/);
    assert.match(specProblem({ ...sample.spec!, items: [...sample.spec!.items, ...sample.spec!.items] }) ?? '', /repeats dashboard_by_uid:abc/);
    assert.match(specProblem(undefined) ?? '', /spec is missing/);
  });

  test('the rendered ConfigMap is owned by its playlist as controller', () => {
    const cm = renderConfigMap(sample, sample.spec!);
    assert.equal(cm.metadata.name, configMapNameOf('standup'));
    assert.equal(cm.metadata.namespace, 'team-a');
    assert.deepEqual(cm.metadata.ownerReferences, [
      { apiVersion: 'playlist.kubeloop.dev/v1', kind: 'Playlist', name: 'standup', uid: 'u-1', controller: true, blockOwnerDeletion: true },
    ]);
    assert.deepEqual(JSON.parse(cm.data!['playlist.json']!), { title: 'Stand-up', interval: '1m30s', items: [{ type: 'dashboard_by_uid', value: 'abc' }] });
  });
});

describe('PlaylistCatalogue', () => {
  const dirs: string[] = [];
  after(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  test('publishes one file per playlist and withdraws it, twice without error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeloop-catalogue-'));
    dirs.push(dir);
    const catalogue = new PlaylistCatalogue(join(dir, 'nested'));
    assert.deepEqual(await catalogue.list(), []);
    await catalogue.publish(sample);
    assert.deepEqual(await catalogue.list(), ['team-a.standup']);
    const entry = JSON.parse(await readFile(catalogue.fileOf({ namespace: 'team-a', name: 'standup' }), 'utf8'));
    assert.equal(entry.items, 1);
    assert.equal(entry.generation, 3);
    await catalogue.withdraw({ namespace: 'team-a', name: 'standup' });
    await catalogue.withdraw({ namespace: 'team-a', name: 'standup' });
    assert.deepEqual(await catalogue.list(), []);
  });
});
