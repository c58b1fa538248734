/** Uploads cut by their clients: counted, logged as one line at most every 10 s, never a stack. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startApiServer } from '../api-server.js';
import { waitFor } from '../testing/test-client.js';
import { AbortedRequests, abortedLogIntervalMs } from './aborted-requests.js';

describe('aborted requests', () => {
  test('one line per interval, counting the ones in between', () => {
    let now = 0;
    const lines: string[] = [];
    const aborted = new AbortedRequests((line) => lines.push(line), () => now);
    aborted.note('POST /a');
    aborted.note('POST /b');
    aborted.note('POST /c');
    assert.deepEqual(lines, ['kubeloop-apiserver: a client went away before its request was read: POST /a']);
    now += abortedLogIntervalMs;
    aborted.note('PUT /d');
    assert.equal(lines[1], 'kubeloop-apiserver: a client went away before its request was read: PUT /d (and 2 more since the last such line)');
    assert.equal(aborted.count, 4);
  });

  test('five uploads cut mid-body over HTTP: one log line without a stack, all counted, the server goes on', async () => {
    const lines: string[] = [];
    const server = await startApiServer({ logger: (line) => lines.push(line) });
    try {
      const { hostname, port } = new URL(server.url);
      for (let i = 0; i < 5; i++) {
        await new Promise<void>((resolve, reject) => {
          const socket = connect(Number(port), hostname, () => {
            socket.write(`POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"metadata":`);
            setTimeout(() => {
              socket.destroy();
              resolve();
            }, 20);
          });
          socket.on('error', reject);
        });
      }
      await waitFor(() => server.connectionStats().abortedRequests === 5, { message: 'five aborted requests counted' });
      const aborted = lines.filter((line) => line.includes('went away'));
      assert.equal(aborted.length, 1, lines.join('\n'));
      assert.ok(!lines.some((line) => line.includes('    at ')), `no stack in the log:\n${lines.join('\n')}`);
      const res = await fetch(`${server.url}/api/v1/namespaces/default`);
      assert.equal(res.status, 200);
    } finally {
      await server.stop();
    }
  });
});
