/**
 * Durability of `kubeloop-apiserver --data-dir`: the process is killed with SIGKILL while clients
 * write, restarted on the same directory, and every write it acknowledged must be there, with
 * resourceVersions that keep increasing. A log whose tail was torn is reported and its valid
 * prefix kept.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiServerProcess } from './support/api-server-process.js';
import { rawRequest } from './support/raw-api.js';
import { TempDirs } from './support/temp-dir.js';
import { waitFor } from './support/wait-for.js';

type ConfigMap = { metadata: { name: string; resourceVersion: string }; data?: Record<string, string> };

const configMaps = '/api/v1/namespaces/default/configmaps';

/** What a client knows for sure about one object: the last write the server acknowledged. */
interface Acknowledged {
  rv: number;
  data: Record<string, string> | undefined;
  deleted: boolean;
}

describe('kubeloop-apiserver durability', { timeout: 120_000 }, () => {
  const temp = new TempDirs();
  const processes: ApiServerProcess[] = [];

  after(async () => {
    await Promise.all(processes.map((p) => p.kill()));
    await temp.removeAll();
  });

  async function start(dataDir: string, fsync?: 'always' | 'batch' | 'never', repair = false): Promise<ApiServerProcess> {
    const p = await ApiServerProcess.start({ dataDir, repair, ...(fsync !== undefined && { fsync }) });
    processes.push(p);
    return p;
  }

  /** Starts the CLI on `dataDir` expecting it to exit 1 before listening; returns what it printed. */
  async function startRefused(dataDir: string, why: string): Promise<string> {
    const refused = await ApiServerProcess.start({ dataDir }).then(
      (p) => {
        processes.push(p);
        return undefined;
      },
      (err: unknown) => String(err),
    );
    assert.ok(refused !== undefined, why);
    assert.match(refused, /"code":1/);
    return refused;
  }

  // Every policy promises survival of a process crash (they differ on power loss only).
  for (const fsync of ['always', 'batch', 'never'] as const) {
    test(`with --fsync ${fsync} every acknowledged write survives a SIGKILL in the middle of concurrent writes`, async () => {
      const dataDir = join(await temp.make('durability'), 'data');
      const first = await start(dataDir, fsync);
      const acked = new Map<string, Acknowledged>();
      // The one write per worker that may be in flight when the process dies: applied or not, both are fine.
      const inFlight = new Map<number, string>();
      let maxAckedRv = 0;
      let stop = false;

      const ack = (name: string, rv: number, data: Record<string, string> | undefined, deleted: boolean): void => {
        acked.set(name, { rv, data, deleted });
        maxAckedRv = Math.max(maxAckedRv, rv);
      };

      // Each worker owns its names and writes them one after the other: create, update, sometimes delete.
      const worker = async (w: number): Promise<void> => {
        for (let i = 0; !stop; i++) {
          const name = `w${w}-${i}`;
          try {
            inFlight.set(w, name);
            const created = await rawRequest<ConfigMap>(first.url, 'POST', configMaps, { body: { metadata: { name }, data: { step: 'created' } } });
            assert.equal(created.status, 201, JSON.stringify(created.body));
            ack(name, Number(created.body.metadata.resourceVersion), { step: 'created' }, false);
            if (stop) return;

            const patched = await rawRequest<ConfigMap>(first.url, 'PATCH', `${configMaps}/${name}`, {
              body: { data: { step: 'patched', by: `worker-${w}` } },
              contentType: 'application/merge-patch+json',
            });
            assert.equal(patched.status, 200, JSON.stringify(patched.body));
            ack(name, Number(patched.body.metadata.resourceVersion), { step: 'patched', by: `worker-${w}` }, false);
            if (stop || i % 4 !== 3) continue;

            const deleted = await rawRequest<ConfigMap>(first.url, 'DELETE', `${configMaps}/${name}`);
            assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
            ack(name, maxAckedRv, undefined, true);
          } catch (err) {
            // The server died under this request: it was never acknowledged.
            if (stop) return;
            throw err;
          }
        }
      };

      const workers = Array.from({ length: 6 }, (_, w) => worker(w));
      try {
        await waitFor(() => acked.size >= 120, { timeoutMs: 20_000, intervalMs: 5, what: '120 acknowledged objects' });
      } finally {
        stop = true;
        await first.kill('SIGKILL');
        await Promise.all(workers);
      }

      const second = await start(dataDir, fsync);
      const list = await rawRequest<{ metadata: { resourceVersion: string }; items: ConfigMap[] }>(second.url, 'GET', configMaps);
      assert.equal(list.status, 200);
      const stored = new Map(list.body.items.map((item) => [item.metadata.name, item]));
      const maybeChanged = new Set(inFlight.values());
      for (const [name, want] of acked) {
        const got = stored.get(name);
        if (want.deleted) {
          assert.equal(got, undefined, `${name} was deleted (acknowledged) but came back`);
          continue;
        }
        if (got === undefined) {
          assert.ok(maybeChanged.has(name), `${name} (rv ${want.rv}) was acknowledged but is missing after the restart`);
          continue;
        }
        const rv = Number(got.metadata.resourceVersion);
        assert.ok(rv >= want.rv, `${name}: resourceVersion ${rv} is older than the acknowledged ${want.rv}`);
        if (rv === want.rv) assert.deepEqual(got.data, want.data, `${name}: data differs from the acknowledged write`);
        else assert.ok(maybeChanged.has(name), `${name} changed after its last acknowledged write without any write in flight`);
      }

      assert.ok(Number(list.body.metadata.resourceVersion) >= maxAckedRv, 'the list resourceVersion is at least the highest acknowledged one');
      const next = await rawRequest<ConfigMap>(second.url, 'POST', configMaps, { body: { metadata: { name: 'after-restart' } } });
      assert.equal(next.status, 201);
      assert.ok(Number(next.body.metadata.resourceVersion) > maxAckedRv, 'resourceVersions keep increasing across the restart');
      await second.kill('SIGTERM');
    });
  }

  test('a second kubeloop-apiserver on the same --data-dir exits with a message naming the first one; after a SIGKILL of the first it starts', async () => {
    const dataDir = join(await temp.make('locked'), 'data');
    const first = await start(dataDir);
    const refused = await startRefused(dataDir, 'two servers must not share a data directory');
    assert.match(refused, new RegExp(`data directory is in use by another kubeloop-apiserver \\(pid ${first.pid} on `));
    assert.equal((await rawRequest(first.url, 'POST', configMaps, { body: { metadata: { name: 'still-serving' } } })).status, 201);

    // A crash leaves the lock file behind: it is stale, and the next server takes it over.
    await first.kill('SIGKILL');
    const second = await start(dataDir);
    assert.equal((await rawRequest(second.url, 'GET', `${configMaps}/still-serving`)).status, 200);
    await second.kill('SIGTERM');
  });

  test('a log damaged in the middle stops the CLI with a message naming the byte and record; --repair starts on the valid prefix', async () => {
    const dataDir = join(await temp.make('mid-log-damage'), 'data');
    const first = await start(dataDir);
    for (let i = 0; i < 100; i++) assert.equal((await rawRequest(first.url, 'POST', configMaps, { body: { metadata: { name: `cm-${i}` } } })).status, 201);
    await first.kill('SIGTERM');
    const log = join(dataDir, 'wal.log');
    const bytes = await readFile(log);
    const at = Math.floor(bytes.length / 10);
    bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41;
    await writeFile(log, bytes);

    const refused = await startRefused(dataDir, 'the server must not start on a damaged log');
    assert.match(refused, /is corrupt at byte \d+ \(record \d+: .+\) and \d+ intact records follow it; refusing to start/);
    assert.doesNotMatch(refused, /\n\s+at /, 'a clear message, not a stack trace');

    const repaired = await start(dataDir, undefined, true);
    assert.match(repaired.stderr, /repaired the write-ahead log/);
    const names = (await rawRequest<{ items: ConfigMap[] }>(repaired.url, 'GET', configMaps)).body.items.length;
    assert.ok(names > 0 && names < 100, `the valid prefix is served: ${names} objects`);
    await repaired.kill('SIGTERM');
  });

  test('a log whose last record was torn is reported, its valid prefix kept, and writes continue cleanly', async () => {
    const dataDir = join(await temp.make('torn-tail'), 'data');
    const first = await start(dataDir);
    for (const name of ['kept-1', 'kept-2', 'torn']) {
      assert.equal((await rawRequest(first.url, 'POST', configMaps, { body: { metadata: { name } } })).status, 201);
    }
    await first.kill('SIGKILL');

    // Cut the log in the middle of its last record, as a crash during write(2) would.
    const log = join(dataDir, 'wal.log');
    const bytes = await readFile(log);
    const lastLineStart = bytes.lastIndexOf('\n', bytes.length - 2) + 1;
    assert.match(bytes.subarray(lastLineStart).toString(), /"name":"torn"/, 'the last record is the last write');
    await truncate(log, lastLineStart + Math.floor((bytes.length - lastLineStart) / 2));

    const second = await start(dataDir);
    assert.match(second.stderr, new RegExp(`corrupt or torn record at byte ${lastLineStart}`));
    const names = async (url: string): Promise<string[]> =>
      (await rawRequest<{ items: ConfigMap[] }>(url, 'GET', configMaps)).body.items.map((i) => i.metadata.name).sort();
    assert.deepEqual(await names(second.url), ['kept-1', 'kept-2']);
    const created = await rawRequest<ConfigMap>(second.url, 'POST', configMaps, { body: { metadata: { name: 'after-repair' } } });
    assert.equal(created.status, 201);
    await second.kill('SIGKILL');

    const third = await start(dataDir);
    assert.doesNotMatch(third.stderr, /corrupt/, 'the repaired log replays without complaint');
    assert.deepEqual(await names(third.url), ['after-repair', 'kept-1', 'kept-2']);
    await third.kill('SIGTERM');
  });
});
