import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import { call } from '../testing/test-client.js';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } };
const podPath = '/api/v1/namespaces/default/pods/web';

for (const simulate of [false, true]) {
  describe(`a Pod's exec, attach, portforward and log ${simulate ? 'with' : 'without'} the simulation`, () => {
    test('answer a clear Status saying no container runs, not a bare 404', async () => {
      const server = await startApiServer({ simulate });
      try {
        assert.equal((await call(server.url, 'POST', '/api/v1/namespaces/default/pods', pod)).status, 201);
        for (const subresource of ['exec?command=ls&container=app&stdout=true', 'attach?stdout=true', 'portforward?ports=80']) {
          const res = await call(server.url, 'POST', `${podPath}/${subresource}`);
          assert.equal(res.status, 501, res.text);
          assert.equal(res.body.reason, 'NotImplemented');
          assert.match(res.body.message, /is not supported for pod "web": the embedded API server runs no containers/);
        }
        const logs = await call(server.url, 'GET', `${podPath}/log?container=app`);
        assert.equal(logs.status, 400, logs.text);
        assert.equal(logs.body.reason, 'BadRequest');
        assert.match(logs.body.message, /^pod "web" has no logs: the embedded API server runs no containers/);
        assert.equal((await call(server.url, 'DELETE', `${podPath}/log`)).status, 405);
        const missing = await call(server.url, 'GET', '/api/v1/namespaces/default/pods/absent/log');
        assert.equal(missing.status, 404);
        assert.equal(missing.body.message, 'pods "absent" not found');
      } finally {
        await server.stop();
      }
    });
  });
}
