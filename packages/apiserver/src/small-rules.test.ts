import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeContinueToken, encodeContinueToken } from './storage/continue-token.js';
import { dns1123LabelProblems, dns1123SubdomainProblems, generateNamePrefixProblems } from './objects/name-validation.js';
import { parseRoute } from './http/request-route.js';
import { isStatusError } from './http/status-error.js';
import { compareVersionPriority } from './types/version-priority.js';

describe('small rules', () => {
  test('versions sort GA, then beta, then alpha, higher numbers first, then other names', () => {
    const sorted = ['v1alpha1', 'foo', 'v2beta1', 'v1', 'v2', 'v1beta2', 'v1beta1', 'bar'].sort(compareVersionPriority);
    assert.deepEqual(sorted, ['v2', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v1alpha1', 'bar', 'foo']);
  });

  test('a continue token round-trips and a foreign one is a 400', () => {
    const token = encodeContinueToken({ rv: 42, start: 'default/b\u0000' });
    assert.deepEqual(decodeContinueToken(token), { rv: 42, start: 'default/b\u0000' });
    assert.throws(() => decodeContinueToken('e30'), (err: unknown) => isStatusError(err) && err.status.code === 400);
  });

  test('names: subdomains allow dots, labels do not, generateName prefixes may end with a dash', () => {
    assert.deepEqual(dns1123SubdomainProblems('a.b-c'), []);
    assert.equal(dns1123SubdomainProblems('A').length, 1);
    assert.equal(dns1123LabelProblems('a.b').length, 1);
    assert.equal(dns1123LabelProblems('x'.repeat(64))[0], 'must be no more than 63 characters');
    assert.deepEqual(generateNamePrefixProblems('subdomain', 'web-'), []);
  });

  test('routes: namespaced objects, subresources, namespace status and legacy watch paths', () => {
    assert.deepEqual(parseRoute('/api/v1/namespaces/ns/configmaps/x'), {
      kind: 'resource', group: '', version: 'v1', plural: 'configmaps', namespace: 'ns', name: 'x', subresource: undefined, legacyWatch: false,
    });
    assert.deepEqual(parseRoute('/api/v1/namespaces/ns/status'), {
      kind: 'resource', group: '', version: 'v1', plural: 'namespaces', namespace: undefined, name: 'ns', subresource: 'status', legacyWatch: false,
    });
    assert.deepEqual(parseRoute('/apis/example.com/v1/watch/namespaces/ns/widgets'), {
      kind: 'resource', group: 'example.com', version: 'v1', plural: 'widgets', namespace: 'ns', name: undefined, subresource: undefined, legacyWatch: true,
    });
    assert.deepEqual(parseRoute('/apis/example.com/v1'), { kind: 'resourceList', group: 'example.com', version: 'v1' });
    assert.deepEqual(parseRoute('/nope'), { kind: 'notFound' });
  });
});
