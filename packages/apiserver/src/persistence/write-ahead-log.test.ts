import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WalError, WriteAheadLog, walFileName } from './write-ahead-log.js';
import type { FsyncPolicy, WalRecord } from './write-ahead-log.js';
import { encodeRecord } from './wal-record-codec.js';
import { isWalCorruptionError } from './wal-corruption-error.js';
import { waitFor } from '../testing/eventually.js';
import { tempDirsForSuite } from '../temp-dirs.test-helper.js';

const tempDir = tempDirsForSuite('kubeloop-wal-');

const put = (rv: number, name = `cm-${rv}`): WalRecord => ({ rv, op: 'put', key: `/v1/configmaps/default/${name}`, object: { metadata: { name, resourceVersion: String(rv) } } });

async function reopen(dir: string, fsync: FsyncPolicy = 'always') {
  const opened = await WriteAheadLog.open(dir, { fsync });
  await opened.log.close();
  return opened;
}

/** A log of four records whose second one has a flipped byte: damage with two intact records after it. */
async function damagedLog(): Promise<{ dir: string; path: string; bytes: Buffer; second: number }> {
  const dir = await tempDir();
  const { log } = await WriteAheadLog.open(dir, { fsync: 'never' });
  for (const rv of [1, 2, 3, 4]) await log.append(put(rv));
  await log.close();
  const path = join(dir, walFileName);
  const bytes = await readFile(path);
  const second = encodeRecord(put(1)).length;
  bytes[bytes.indexOf('cm-2', second)] = 'X'.charCodeAt(0);
  await writeFile(path, bytes);
  return { dir, path, bytes, second };
}

describe('WriteAheadLog', () => {
  test('starts empty in a new directory, creating it', async () => {
    const dir = join(await tempDir(), 'nested', 'data');
    const { log, records, corruption } = await WriteAheadLog.open(dir, { fsync: 'always' });
    await log.close();
    assert.deepEqual(records, []);
    assert.equal(corruption, undefined);
    assert.equal((await stat(join(dir, walFileName))).size, 0);
  });

  test('replays appended records in order after a reopen, resourceVersions preserved', async () => {
    const dir = await tempDir();
    const written = [put(3), { rv: 7, op: 'delete' as const, key: '/v1/configmaps/default/cm-3' }, put(12, 'x')];
    const { log } = await WriteAheadLog.open(dir, { fsync: 'always' });
    for (const r of written) await log.append(r);
    await log.close();
    assert.deepEqual((await reopen(dir)).records, written);
  });

  test('appends after the replayed records on a reopen', async () => {
    const dir = await tempDir();
    const first = await WriteAheadLog.open(dir, { fsync: 'always' });
    await first.log.append(put(1));
    await first.log.close();
    const second = await WriteAheadLog.open(dir, { fsync: 'always' });
    await second.log.append(put(2));
    await second.log.close();
    assert.deepEqual((await reopen(dir)).records.map((r) => r.rv), [1, 2]);
  });

  for (const fsync of ['always', 'batch', 'never'] as const) {
    test(`with fsync '${fsync}' 100 concurrent appends all resolve and all replay in call order`, async () => {
      const dir = await tempDir();
      const { log } = await WriteAheadLog.open(dir, { fsync });
      const records = Array.from({ length: 100 }, (_, i) => put(i + 1));
      await Promise.all(records.map((r) => log.append(r)));
      const stats = log.stats;
      await log.close();
      assert.equal(stats.appends, 100);
      if (fsync === 'always') assert.ok(stats.fsyncs <= 5, `group commit should share fsyncs, got ${stats.fsyncs} for 100 appends`);
      assert.deepEqual((await reopen(dir)).records, records);
    });
  }

  test("with fsync 'always' an append resolves only after an fsync", async () => {
    const dir = await tempDir();
    const { log } = await WriteAheadLog.open(dir, { fsync: 'always' });
    await log.append(put(1));
    assert.equal(log.stats.fsyncs, 1);
    await log.close();
  });

  test("with fsync 'batch' an fsync follows appends shortly", async () => {
    const dir = await tempDir();
    const { log } = await WriteAheadLog.open(dir, { fsync: 'batch' });
    await log.append(put(1));
    await log.append(put(2));
    await waitFor(() => log.stats.fsyncs >= 1, { timeoutMs: 2000, intervalMs: 2, what: 'the batched fsync' });
    assert.ok(log.stats.fsyncs <= 2);
    await log.close();
  });

  test('keeps the valid prefix, reports and cuts off a tail truncated at any byte of the last record', async () => {
    const dir = await tempDir();
    const { log } = await WriteAheadLog.open(dir, { fsync: 'never' });
    await log.append(put(1));
    await log.append(put(2));
    await log.close();
    const full = await readFile(join(dir, walFileName));
    const prefixLength = encodeRecord(put(1)).length;
    for (let cut = prefixLength + 1; cut < full.length; cut++) {
      await writeFile(join(dir, walFileName), full.subarray(0, cut));
      const opened = await WriteAheadLog.open(dir, { fsync: 'never' });
      assert.deepEqual(opened.records, [put(1)], `cut at ${cut}`);
      assert.equal(opened.corruption?.offset, prefixLength, `cut at ${cut}`);
      assert.match(opened.corruption?.reason ?? '', /truncated/);
      assert.equal(opened.corruption?.kind, 'torn-tail', `cut at ${cut}`);
      assert.equal(opened.corruption?.droppedRecords, 0, `cut at ${cut}`);
      assert.equal((await stat(join(dir, walFileName))).size, prefixLength, 'the file is cut back to the valid prefix');
      // Later appends land cleanly after the prefix.
      await opened.log.append(put(3));
      await opened.log.close();
      const again = await reopen(dir, 'never');
      assert.deepEqual(again.records, [put(1), put(3)], `cut at ${cut}`);
      assert.equal(again.corruption, undefined);
      await writeFile(join(dir, walFileName), full);
    }
  });

  test('refuses to open a log with a bad record followed by intact ones, naming its offset and record, and leaves the file as it was', async () => {
    const { dir, path, bytes, second } = await damagedLog();

    await assert.rejects(WriteAheadLog.open(dir, { fsync: 'never' }), (err: unknown) => {
      assert.ok(isWalCorruptionError(err));
      assert.equal(err.offset, second);
      assert.equal(err.recordIndex, 1);
      assert.equal(err.reason, 'checksum mismatch');
      assert.equal(err.intactRecordsAfter, 2);
      assert.match(err.message, new RegExp(`corrupt at byte ${second} \\(record 2: checksum mismatch\\) and 2 intact records follow it`));
      assert.match(err.message, /--repair/);
      return true;
    });
    assert.deepEqual(await readFile(path), bytes, 'nothing was cut');
    assert.deepEqual(await readdir(dir), [walFileName], 'nothing was written beside it');
  });

  test('with repair, keeps the records before a bad one, saves and drops the rest, and reports how many and which resourceVersions', async () => {
    const { dir, bytes, second } = await damagedLog();

    const opened = await WriteAheadLog.open(dir, { fsync: 'never', repair: true });
    await opened.log.close();
    assert.deepEqual(opened.records, [put(1)]);
    assert.deepEqual({ ...opened.corruption, savedTo: undefined }, {
      offset: second,
      reason: 'checksum mismatch',
      kind: 'repaired',
      recordIndex: 1,
      droppedBytes: bytes.length - second,
      droppedRecords: 2,
      droppedMaxRv: 4,
      savedTo: undefined,
    });
    assert.deepEqual(await readFile(opened.corruption?.savedTo ?? ''), bytes.subarray(second));
    assert.deepEqual((await reopen(dir)).records, [put(1)], 'the repaired file replays without complaint');
  });

  test('compacts to a snapshot that replays after a reopen, and appends continue after it', async () => {
    const dir = await tempDir();
    const { log } = await WriteAheadLog.open(dir, { fsync: 'always', compactAfterBytes: 512 });
    for (let rv = 1; rv <= 20; rv++) await log.append(put(rv, 'same'));
    assert.equal(log.needsCompaction(), true);
    const snapshot = [put(20, 'same')];
    await log.compact(snapshot);
    assert.equal(log.needsCompaction(), false);
    assert.equal(log.sizeBytes, encodeRecord(snapshot[0]!).length);
    await log.append(put(21, 'other'));
    await log.close();
    assert.deepEqual((await reopen(dir)).records, [put(20, 'same'), put(21, 'other')]);
    assert.deepEqual((await readdir(dir)).sort(), [walFileName]);
  });

  test('writes appends made while a compaction runs to the new file', async () => {
    const dir = await tempDir();
    const { log } = await WriteAheadLog.open(dir, { fsync: 'always' });
    await log.append(put(1));
    const before = log.append(put(2));
    const compaction = log.compact([put(1), put(2)]);
    const during = log.append(put(3));
    await Promise.all([before, compaction, during]);
    await log.close();
    assert.deepEqual((await reopen(dir)).records, [put(1), put(2), put(3)]);
  });

  test('does not compact in a loop when the live set itself is larger than the threshold', async () => {
    const dir = await tempDir();
    const { log } = await WriteAheadLog.open(dir, { fsync: 'never', compactAfterBytes: 100 });
    const snapshot = Array.from({ length: 10 }, (_, i) => put(i + 1));
    await log.compact(snapshot);
    assert.equal(log.needsCompaction(), false, 'right after compaction');
    await log.close();
  });

  test('after a reopen, compaction follows the size of the live records, not the size of the file replayed', async () => {
    const dir = await tempDir();
    const first = await WriteAheadLog.open(dir, { fsync: 'never' });
    for (let rv = 1; rv <= 100; rv++) await first.log.append(put(rv, 'same'));
    await first.log.close();
    const fileBytes = (await stat(join(dir, walFileName))).size;
    const liveBytes = encodeRecord(put(100, 'same')).length;

    const { log } = await WriteAheadLog.open(dir, { fsync: 'never', compactAfterBytes: fileBytes / 4 });
    try {
      assert.equal(log.needsCompaction(), true, `${fileBytes} bytes of log hold ${liveBytes} live bytes: compact now`);
      await log.compact([put(100, 'same')]);
      assert.equal(log.sizeBytes, liveBytes);
      assert.equal(log.needsCompaction(), false);
    } finally {
      await log.close();
    }
  });

  test('live bytes account for deletes: a log of created-then-deleted objects needs compaction', async () => {
    const dir = await tempDir();
    const { log } = await WriteAheadLog.open(dir, { fsync: 'never', compactAfterBytes: 1024 });
    try {
      for (let rv = 1; rv <= 20; rv += 2) {
        await log.append(put(rv));
        await log.append({ rv: rv + 1, op: 'delete', key: put(rv).key });
      }
      assert.ok(log.sizeBytes > 1024);
      assert.equal(log.needsCompaction(), true);
    } finally {
      await log.close();
    }
  });

  test('ignores a temporary file left by a compaction that crashed before its rename', async () => {
    const dir = await tempDir();
    const { log } = await WriteAheadLog.open(dir, { fsync: 'always' });
    await log.append(put(1));
    await log.close();
    await writeFile(join(dir, `${walFileName}.compacting`), encodeRecord(put(99)).subarray(0, 10));
    const opened = await reopen(dir);
    assert.deepEqual(opened.records, [put(1)]);
    assert.deepEqual(await readdir(dir), [walFileName]);
  });

  test('rejects appends after close with a WalError, and a second close is harmless', async () => {
    const dir = await tempDir();
    const { log } = await WriteAheadLog.open(dir, { fsync: 'never' });
    const pending = log.append(put(1));
    const closing = log.close();
    await pending;
    await closing;
    await assert.rejects(log.append(put(2)), (err: unknown) => err instanceof WalError && err.code === 'WalError');
    await log.close();
    assert.deepEqual((await reopen(dir)).records, [put(1)]);
  });

  test('refuses invalid options', async () => {
    const dir = await tempDir();
    await assert.rejects(WriteAheadLog.open(dir, { fsync: 'sometimes' as FsyncPolicy }), WalError);
    await assert.rejects(WriteAheadLog.open(dir, { fsync: 'always', compactAfterBytes: 0 }), WalError);
  });

  test('reports a file that is garbage from its first byte and keeps nothing', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, walFileName), 'not a log at all\n');
    const opened = await reopen(dir);
    assert.deepEqual(opened.records, []);
    assert.equal(opened.corruption?.offset, 0);
    assert.equal((await stat(join(dir, walFileName))).size, 0);
  });
});
