import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { ObjectStore } from '../storage/object-store.js';
import { isStatusError } from '../http/status-error.js';
import type { StatusError } from '../http/status-error.js';
import { nodeFileSystem } from './wal-file-system.js';
import type { WalFile, WalFileSystem } from './wal-file-system.js';
import { WriteAheadLog } from './write-ahead-log.js';
import { tempDirsForSuite } from '../temp-dirs.test-helper.js';

const tempDir = tempDirsForSuite('kubeloop-disk-faults-');

/** An errno error shaped like Node's, whose message names the file as Node's `open` errors do. */
function errnoError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated failure, ${syscall} '${path}'`), { code, syscall, path });
}

/** The real file system, except that writes or fsyncs of the log can be made to fail. */
class FaultyFileSystem implements WalFileSystem {
  /** Writes store half their bytes, then fail with ENOSPC (a disk filling up mid-write). */
  failWrites = false;
  /** fsyncs fail with EIO. */
  failSyncs = false;

  constructor(private readonly dir: string) {}

  readonly open = async (path: string, flags: string): Promise<WalFile> => {
    const file = await nodeFileSystem.open(path, flags);
    return {
      write: async (buffer, offset, length) => {
        if (!this.failWrites) return file.write(buffer, offset, length);
        await file.write(buffer, offset, Math.floor(length / 2));
        throw errnoError('ENOSPC', 'write', this.dir);
      },
      datasync: () => (this.failSyncs ? Promise.reject(errnoError('EIO', 'fdatasync', this.dir)) : file.datasync()),
      sync: () => (this.failSyncs ? Promise.reject(errnoError('EIO', 'fsync', this.dir)) : file.sync()),
      truncate: (length) => file.truncate(length),
      close: () => file.close(),
    };
  };

  readonly readFile = nodeFileSystem.readFile;
  readonly writeFile = nodeFileSystem.writeFile;
  readonly rename = nodeFileSystem.rename;
  readonly removeFile = nodeFileSystem.removeFile;
  readonly makeDirectory = nodeFileSystem.makeDirectory;
}

const table = '/v1/configmaps';
const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });

/** A store logging to a fresh directory through a FaultyFileSystem (no faults yet), holding one object, `kept` (rv 1). */
async function storeHoldingOneObject(): Promise<{ dir: string; fs: FaultyFileSystem; store: ObjectStore }> {
  const dir = await tempDir();
  const fs = new FaultyFileSystem(dir);
  const { log } = await WriteAheadLog.open(dir, { fsync: 'always', fs });
  const store = new ObjectStore({ historyWindow: 100 });
  store.ensureTable(table);
  store.attachLog(log);
  await store.exclusive(() => store.put(table, 'default/kept', configMap('kept')));
  return { dir, fs, store };
}

async function replay(dir: string): Promise<{ keys: string[]; rvs: number[] }> {
  const { log, records } = await WriteAheadLog.open(dir, { fsync: 'always' });
  await log.close();
  return { keys: records.map((r) => r.key), rvs: records.map((r) => r.rv) };
}

describe('writes under disk faults', () => {
  test('a write whose append hits ENOSPC is answered 500 without the data directory, is neither applied nor replayed, and later writes work', async () => {
    const { dir, fs, store } = await storeHoldingOneObject();

    fs.failWrites = true;
    const failed = await refusedWith500(store.exclusive(() => store.put(table, 'default/refused', configMap('refused'))), dir);
    assert.match(failed.status.message ?? '', /ENOSPC \(write\)/);
    assert.equal(store.get(table, 'default/refused'), undefined, 'not applied in memory');
    assert.equal(store.resourceVersion, 1);

    fs.failWrites = false;
    const later = await store.exclusive(() => store.put(table, 'default/later', configMap('later')));
    assert.equal(later.rv, 2, 'the next write takes the resourceVersion the failed one did not');
    await store.closeLog();

    const replayed = await replay(dir);
    assert.deepEqual(replayed.keys, [`${table}|default/kept`, `${table}|default/later`], 'the refused write left no record');
    assert.deepEqual(replayed.rvs, [1, 2]);
  });

  test('a write whose fsync fails is answered 500, the log refuses later writes, and the refused write does not replay', async () => {
    const { dir, fs, store } = await storeHoldingOneObject();

    fs.failSyncs = true;
    const failed = await refusedWith500(store.exclusive(() => store.put(table, 'default/refused', configMap('refused'))), dir);
    assert.match(failed.status.message ?? '', /EIO \(fdatasync\)/);
    assert.equal(store.get(table, 'default/refused'), undefined);

    // An fsync failure may have lost pages the kernel no longer reports: nothing more is acknowledged.
    fs.failSyncs = false;
    await refusedWith500(store.exclusive(() => store.put(table, 'default/after', configMap('after'))), dir);
    await store.closeLog();

    const replayed = await replay(dir);
    assert.deepEqual(replayed.keys, [`${table}|default/kept`], 'the refused writes left no record');
  });
});

/** Asserts that `write` is refused with a 500 StatusError that does not name the data directory `dir`; returns the error. */
async function refusedWith500(write: Promise<unknown>, dir: string): Promise<StatusError> {
  const err = await write.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(isStatusError(err), `expected a StatusError, got ${String(err)}`);
  assert.equal(err.status.code, 500);
  assert.ok(!JSON.stringify(err.status).includes(dir), `the answer must not name the data directory: ${JSON.stringify(err.status)}`);
  return err;
}
