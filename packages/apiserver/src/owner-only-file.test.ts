/** The kubeconfig carries the bearer token: only its owner may read it, also when the file existed before. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startApiServer } from './api-server.js';
import { tempDirsForSuite } from './temp-dirs.test-helper.js';

const tempDir = tempDirsForSuite('kubeloop-owner-only-');

describe('the kubeconfig file', () => {
  test('is written 0600, new or replacing a world-readable one', async () => {
    const server = await startApiServer({ token: 'secret-token' });
    try {
      const dir = await tempDir();
      const fresh = join(dir, 'fresh.kubeconfig');
      await server.writeKubeconfig(fresh);
      assert.equal((await stat(fresh)).mode & 0o777, 0o600);
      const existing = join(dir, 'existing.kubeconfig');
      await writeFile(existing, 'old', { mode: 0o644 });
      await server.writeKubeconfig(existing);
      assert.equal((await stat(existing)).mode & 0o777, 0o600);
    } finally {
      await server.stop();
    }
  });
});
