import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdir, readFile, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startApiServer } from '../api-server.js';
import { isDataDirLockedError, isWalCorruptionError } from './index.js';
import { call, waitFor, widgetCrd, widgetsPath } from '../testing/test-client.js';
import { tempDirsForSuite } from '../temp-dirs.test-helper.js';

describe('persistence with dataDir', () => {
  const tempDir = tempDirsForSuite('kubeloop-apiserver-');

  test('objects, CRD-defined types and the resourceVersion survive a restart on the same directory', async () => {
    const dataDir = await tempDir();
    const first = await startApiServer({ dataDir });
    await call(first.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd());
    await call(first.url, 'POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'kept' }, spec: { replicas: 3 } });
    await call(first.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'removed' } });
    await call(first.url, 'DELETE', '/api/v1/namespaces/default/configmaps/removed');
    const lastRv = Number(first.resourceVersion());
    await first.stop();

    const second = await startApiServer({ dataDir });
    try {
      assert.equal(second.resourceVersion(), String(lastRv), 'the counter continues from the replayed maximum');
      const kept = await call(second.url, 'GET', `${widgetsPath()}/kept`);
      assert.equal(kept.status, 200);
      assert.equal(kept.body.spec.replicas, 3);
      assert.equal((await call(second.url, 'GET', '/api/v1/namespaces/default/configmaps/removed')).status, 404);
      const next = await call(second.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'after' } });
      assert.equal(Number(next.body.metadata.resourceVersion), lastRv + 1);
      const namespaces = await call(second.url, 'GET', '/api/v1/namespaces');
      assert.deepEqual(namespaces.body.items.map((n: { metadata: { name: string } }) => n.metadata.name), ['default', 'kube-system']);
    } finally {
      await second.stop();
    }
  });

  test('when log compaction fails (a directory in the way) writes are still answered 201, survive a restart, and keep distinct resourceVersions', async () => {
    const dataDir = await tempDir();
    const lines: string[] = [];
    const first = await startApiServer({ dataDir, compactAfterBytes: 1, logger: (line) => lines.push(line) });
    await mkdir(join(dataDir, 'wal.log.compacting'));
    const answers: { status: number; text: string }[] = [];
    try {
      // Updates leave superseded records behind, which makes the log worth compacting.
      for (const name of ['c1', 'c2', 'c3']) {
        const created = await call(first.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name }, data: { step: '0' } });
        answers.push({ status: created.status, text: created.text });
        for (const step of ['1', '2']) {
          const patched = await call(first.url, 'PATCH', `/api/v1/namespaces/default/configmaps/${name}`, { data: { step } }, { contentType: 'application/merge-patch+json' });
          answers.push({ status: patched.status, text: patched.text });
        }
      }
    } finally {
      await first.stop();
    }
    await rmdir(join(dataDir, 'wal.log.compacting'));
    assert.deepEqual(answers.map((a) => a.status), [201, 200, 200, 201, 200, 200, 201, 200, 200], JSON.stringify(answers));
    assert.ok(lines.some((line) => /compacting the write-ahead log failed/.test(line)), `the failed compaction is logged: ${lines.join('\n')}`);

    const second = await startApiServer({ dataDir });
    try {
      const list = await call(second.url, 'GET', '/api/v1/namespaces/default/configmaps');
      assert.deepEqual(list.body.items.map((i: { metadata: { name: string }; data: { step: string } }) => `${i.metadata.name}:${i.data.step}`), ['c1:2', 'c2:2', 'c3:2']);
      const all = [...(await call(second.url, 'GET', '/api/v1/namespaces')).body.items, ...list.body.items];
      const rvs = all.map((i: { metadata: { resourceVersion: string } }) => i.metadata.resourceVersion);
      assert.equal(new Set(rvs).size, rvs.length, `every object has its own resourceVersion: ${rvs.join()}`);
    } finally {
      await second.stop();
    }
  });

  test('a log damaged in the middle refuses to start; with repair it starts, reports the drop and never reuses a dropped resourceVersion', async () => {
    const dataDir = await tempDir();
    const first = await startApiServer({ dataDir, fsync: 'never' });
    for (let i = 0; i < 60; i++) await call(first.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `cm-${i}` }, data: { i: String(i) } });
    const lastRv = Number(first.resourceVersion());
    await first.stop();
    const path = join(dataDir, 'wal.log');
    const bytes = await readFile(path);
    const at = Math.floor(bytes.length / 10);
    bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41;
    await writeFile(path, bytes);

    await assert.rejects(startApiServer({ dataDir }), (err: unknown) => {
      assert.ok(isWalCorruptionError(err), String(err));
      assert.ok(err.offset <= at && err.offset > 0, `the bad record starts at or before the flipped byte ${at}: ${err.offset}`);
      assert.ok(err.intactRecordsAfter > 40, `records after it are reported: ${err.intactRecordsAfter}`);
      assert.match(err.message, /refusing to start/);
      return true;
    });
    assert.deepEqual(await readFile(path), bytes, 'a refused start changes nothing');

    const lines: string[] = [];
    const second = await startApiServer({ dataDir, repair: true, logger: (line) => lines.push(line) });
    try {
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(lines[0]!, /repaired the write-ahead log .*dropped \d+ bytes holding \d+ intact records \(resourceVersions up to \d+/);
      const kept = (await call(second.url, 'GET', '/api/v1/namespaces/default/configmaps')).body.items.length;
      assert.ok(kept > 0 && kept < 60, `the valid prefix is kept: ${kept}`);
      const next = await call(second.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-repair' } });
      assert.equal(next.status, 201);
      assert.ok(Number(next.body.metadata.resourceVersion) > lastRv, `new writes continue after every dropped resourceVersion (${lastRv})`);
    } finally {
      await second.stop();
    }
  });

  test('a second server on the same data directory fails to start with a clear message; once the first stops, it starts', async () => {
    const dataDir = await tempDir();
    const first = await startApiServer({ dataDir });
    try {
      await assert.rejects(startApiServer({ dataDir }), (err: unknown) => {
        assert.ok(isDataDirLockedError(err), String(err));
        assert.match(err.message, /data directory is in use by another kubeloop-apiserver/);
        return true;
      });
      const created = await call(first.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'only-one-writer' } });
      assert.equal(created.status, 201, 'the first server is unaffected');
    } finally {
      await first.stop();
    }
    const second = await startApiServer({ dataDir });
    try {
      assert.equal((await call(second.url, 'GET', '/api/v1/namespaces/default/configmaps/only-one-writer')).status, 200);
    } finally {
      await second.stop();
    }
  });

  test('after a restart the log is compacted once it holds twice its live objects, however large the replayed file was', async () => {
    const dataDir = await tempDir();
    const first = await startApiServer({ dataDir, fsync: 'never' });
    const filler = 'x'.repeat(2048);
    try {
      assert.equal((await call(first.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'churn' } })).status, 201);
      for (let i = 0; i < 150; i++) {
        const res = await call(first.url, 'PATCH', '/api/v1/namespaces/default/configmaps/churn', { data: { i: String(i), filler } }, { contentType: 'application/merge-patch+json' });
        assert.equal(res.status, 200, res.text);
      }
    } finally {
      await first.stop();
    }
    const replayedBytes = (await stat(join(dataDir, 'wal.log'))).size;
    assert.ok(replayedBytes > 300_000, `the log holds every superseded version: ${replayedBytes} bytes`);

    const second = await startApiServer({ dataDir, compactAfterBytes: 100_000 });
    try {
      assert.equal((await call(second.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'trigger' } })).status, 201);
      await waitFor(async () => (await stat(join(dataDir, 'wal.log'))).size < 20_000, { timeoutMs: 10_000, message: 'the log is compacted to its live objects' });
    } finally {
      await second.stop();
    }
    const third = await startApiServer({ dataDir });
    try {
      const churn = await call(third.url, 'GET', '/api/v1/namespaces/default/configmaps/churn');
      assert.equal(churn.body.data.i, '149', 'the compacted log keeps the last version');
    } finally {
      await third.stop();
    }
  });

  test('a torn log tail is reported through the logger and the valid prefix is kept', async () => {
    const dataDir = await tempDir();
    const first = await startApiServer({ dataDir, fsync: 'batch' });
    await call(first.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'safe' } });
    await first.stop();
    await appendFile(join(dataDir, 'wal.log'), Buffer.from([0x01, 0x02, 0x03]));
    const lines: string[] = [];
    const second = await startApiServer({ dataDir, logger: (line) => lines.push(line) });
    try {
      assert.equal((await call(second.url, 'GET', '/api/v1/namespaces/default/configmaps/safe')).status, 200);
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, /corrupt or torn record/);
    } finally {
      await second.stop();
    }
  });
});
