import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlaylistCatalogue } from './catalogue.js';

/** The pid of a process that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** A zombie: `sleep 0` exits at once, and its parent (the shell, become `sleep 5`) never reaps it. Resolves with its pid and a kill of the parent. */
async function zombie(): Promise<{ pid: number; dispose: () => void }> {
  const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
  const deadline = Date.now() + 5000;
  for (;;) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) break;
    assert.ok(Date.now() < deadline, `process ${pid} did not become a zombie`);
    await sleep(10); // polling /proc, bounded by the deadline above
  }
  return { pid, dispose: () => parent.kill('SIGKILL') };
}

describe('PlaylistCatalogue', () => {
  const dirs: string[] = [];
  after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  test('on start, the temporary files of writes that a dead (or zombie) process never finished go; a live writer’s and the entries stay', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeloop-catalogue-'));
    dirs.push(dir);
    const catalogue = new PlaylistCatalogue(dir);
    const z = await zombie();
    try {
      const live = process.ppid;
      await writeFile(join(dir, 'default.kept.json'), '{}');
      await writeFile(join(dir, `default.dead.json.${deadPid()}.tmp`), '{');
      await writeFile(join(dir, `default.zombie.json.${z.pid}.tmp`), '{');
      await writeFile(join(dir, `default.busy.json.${live}.tmp`), '{');
      assert.equal(await catalogue.sweepUnfinishedWrites(), 2);
      assert.deepEqual((await readdir(dir)).sort(), ['default.busy.json.' + live + '.tmp', 'default.kept.json'].sort());
      assert.deepEqual(await catalogue.list(), ['default.kept']);
    } finally {
      z.dispose();
    }
  });
});
