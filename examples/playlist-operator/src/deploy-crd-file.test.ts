/**
 * deploy/crds/ holds the CRD that `kubeloop manifests` puts into deploy/operator.yaml; it must be the CRD
 * the operator itself installs (`playlistCrd`), or a cluster would get another schema than the demo's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { playlistCrd } from './playlist.js';

const crdDir = new URL('../deploy/crds/', import.meta.url);

test('deploy/crds/ holds exactly playlistCrd (after editing src/playlist.ts, write it again: see the README, "Deploy it")', async () => {
  assert.deepEqual(await readdir(crdDir), [`${playlistCrd.metadata.name}.json`]);
  const onDisk: unknown = JSON.parse(await readFile(new URL(`${playlistCrd.metadata.name}.json`, crdDir), 'utf8'));
  assert.deepEqual(onDisk, JSON.parse(JSON.stringify(playlistCrd)));
});
