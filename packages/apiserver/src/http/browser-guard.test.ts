import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AllowedHosts, browserRequestProblem, exposureRisk, isLoopbackHost } from './browser-guard.js';

describe('browser guard', () => {
  test('tells loopback addresses (warned about when they are not bound) from the others', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LocalHost']) assert.equal(isLoopbackHost(host), true, host);
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'example.com', '128.0.0.1']) assert.equal(isLoopbackHost(host), false, host);
  });

  test('warns about a server other machines reach unless it needs a token over TLS', () => {
    assert.equal(exposureRisk('127.0.0.1', { token: false, tls: false }), undefined);
    assert.match(exposureRisk('0.0.0.0', { token: false, tls: true }) ?? '', /no authentication/);
    assert.match(exposureRisk('192.168.1.20', { token: true, tls: false }) ?? '', /token crosses the network in clear text/);
    assert.equal(exposureRisk('0.0.0.0', { token: true, tls: true }), undefined);
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

  test('a server with tls is its own origin under https, not http', () => {
    const allowed = new AllowedHosts([]);
    assert.equal(browserRequestProblem({ host: 'localhost:8443', origin: 'https://localhost:8443' }, allowed, 'https'), undefined);
    assert.match(browserRequestProblem({ host: 'localhost:8443', origin: 'http://localhost:8443' }, allowed, 'https') ?? '', /cross-origin/);
    assert.match(browserRequestProblem({ host: 'localhost:8443', origin: 'https://localhost:8443' }, allowed) ?? '', /cross-origin/, 'a plain HTTP server');
  });
});
