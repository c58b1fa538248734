// docs/testing.md shows two files in full; they are the files of test/src/guide/, which the suite compiles
// and runs. This test keeps the guide and the files identical, so the guide's example is known to work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);

test('every file shown in docs/testing.md is the file of the repository that runs as a test', () => {
  const guide = readFileSync(new URL('docs/testing.md', root), 'utf8');
  const shown = [...guide.matchAll(/<!-- file: (\S+) -->\n```ts\n([\s\S]*?)\n```/g)];
  assert.deepEqual(shown.map((m) => m[1]), ['test/src/guide/backup-operator.ts', 'test/src/guide/backup-operator.test.ts']);
  for (const [, path, code] of shown) {
    assert.equal(code, readFileSync(new URL(path!, root), 'utf8').trimEnd(), `${path} differs from its copy in docs/testing.md`);
  }
});
