import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isKubeloopError } from './errors.js';
import type { KubeObject } from './object.js';
import { controllerOf, ownerReferenceFor, removeOwnerReference, setControllerReference, setOwnerReference } from './owner-references.js';

function object(kind: string, name: string, namespace?: string, uid?: string): KubeObject {
  return { apiVersion: kind === 'ConfigMap' ? 'v1' : 'example.com/v1', kind, metadata: { name, ...(namespace ? { namespace } : {}), ...(uid ? { uid } : {}) } };
}

const playlist = object('Playlist', 'p1', 'default', 'uid-p1');

describe('ownerReferenceFor', () => {
  test('names the owner by apiVersion, kind, name and uid, with the flags asked for', () => {
    assert.deepEqual(ownerReferenceFor(playlist), { apiVersion: 'example.com/v1', kind: 'Playlist', name: 'p1', uid: 'uid-p1' });
    assert.deepEqual(ownerReferenceFor(playlist, { controller: true, blockOwnerDeletion: false }), {
      apiVersion: 'example.com/v1',
      kind: 'Playlist',
      name: 'p1',
      uid: 'uid-p1',
      controller: true,
      blockOwnerDeletion: false,
    });
  });

  test('refuses an owner without uid (not read from the server)', () => {
    assert.throws(() => ownerReferenceFor(object('Playlist', 'p1', 'default')), (err: unknown) => isKubeloopError(err) && err.code === 'OwnerReferenceError' && /needs a name and a uid/.test(err.message));
  });
});

describe('setControllerReference (controllerutil.SetControllerReference)', () => {
  test('adds a controller reference that blocks owner deletion, keeping other owners', () => {
    const cm = object('ConfigMap', 'c1', 'default');
    cm.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'uid-s' }];
    setControllerReference(playlist, cm);
    assert.deepEqual(cm.metadata.ownerReferences, [
      { apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'uid-s' },
      { apiVersion: 'example.com/v1', kind: 'Playlist', name: 'p1', uid: 'uid-p1', controller: true, blockOwnerDeletion: true },
    ]);
    assert.equal(controllerOf(cm)?.name, 'p1');
  });

  test('replaces the reference to the same owner (another version of its group counts as the same)', () => {
    const cm = object('ConfigMap', 'c1', 'default');
    cm.metadata.ownerReferences = [{ apiVersion: 'example.com/v1beta1', kind: 'Playlist', name: 'p1', uid: 'old-uid' }];
    setControllerReference(playlist, cm);
    assert.equal(cm.metadata.ownerReferences.length, 1);
    assert.equal(cm.metadata.ownerReferences[0]?.uid, 'uid-p1');
  });

  test('refuses a second controller, an owner in another namespace and a namespaced owner of a cluster-scoped object', () => {
    const cm = object('ConfigMap', 'c1', 'default');
    setControllerReference(object('Playlist', 'other', 'default', 'uid-o'), cm);
    assert.throws(() => setControllerReference(playlist, cm), (err: unknown) => isKubeloopError(err) && err.code === 'AlreadyOwned' && /already owned by another controller Playlist other/.test(err.message));
    assert.throws(() => setControllerReference(playlist, object('ConfigMap', 'c2', 'prod')), /cross-namespace owner references are disallowed/);
    assert.throws(() => setControllerReference(playlist, object('Namespace', 'n1')), /must not have a namespace-scoped owner/);
    const clusterOwner = object('Tenant', 't1', undefined, 'uid-t');
    const namespaced = object('ConfigMap', 'c3', 'prod');
    setControllerReference(clusterOwner, namespaced);
    assert.equal(controllerOf(namespaced)?.name, 't1');
  });
});

describe('setOwnerReference, removeOwnerReference', () => {
  test('adds a plain owner, keeps the controller flag of an existing reference, removes by owner', () => {
    const cm = object('ConfigMap', 'c1', 'default');
    setOwnerReference(playlist, cm);
    assert.deepEqual(cm.metadata.ownerReferences, [{ apiVersion: 'example.com/v1', kind: 'Playlist', name: 'p1', uid: 'uid-p1' }]);
    setControllerReference(playlist, cm);
    setOwnerReference(playlist, cm, { blockOwnerDeletion: false });
    assert.deepEqual(cm.metadata.ownerReferences, [{ apiVersion: 'example.com/v1', kind: 'Playlist', name: 'p1', uid: 'uid-p1', blockOwnerDeletion: false, controller: true }]);
    assert.equal(removeOwnerReference(playlist, cm), true);
    assert.equal(cm.metadata.ownerReferences, undefined);
    assert.equal(removeOwnerReference(playlist, cm), false);
  });
});
