import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AllowedHosts, browserRequestProblem, isLoopbackHost } from './browser-guard.js';

describe('browser guard', () => {
  test('tells loopback addresses (warned about when they are not bound) from the others', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LocalHost']) assert.equal(isLoopbackHost(host), true, host);
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'example.com', '128.0.0.1']) assert.equal(isLoopbackHost(host), false, host);
  });

  test('serves clients that send no Origin (kubectl, client-node) and refuses malformed Host headers', () => {
    const allowed = new AllowedHosts(['127.0.0.1']);
    assert.equal(browserRequestProblem({ host: '127.0.0.1:6443' }, allowed), undefined);
    assert.match(browserRequestProblem({ host: 'a b' }, allowed) ?? '', /is not one this server answers to/);
    assert.match(browserRequestProblem({}, allowed) ?? '', /is not one this server answers to/);
  });

  test('compares origins by scheme, host and port', () => {
    const allowed = new AllowedHosts([]);
    assert.equal(browserRequestProblem({ host: 'localhost:80', origin: 'http://localhost' }, allowed), undefined, 'the default port is the same origin');
    assert.match(browserRequestProblem({ host: 'localhost:8080', origin: 'http://localhost:8081' }, allowed) ?? '', /cross-origin/);
  });
});
