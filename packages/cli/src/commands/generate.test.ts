/** `kubeloop generate`: both directions, idempotent, `--check` for CI, one-line errors for bad inputs. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../memory-io.test-helper.js';
import { runGenerate } from './generate.js';
import { runInit } from './init.js';

describe('kubeloop generate', () => {
  let work: string;
  let dir: string;
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'kubeloop-generate-'));
    dir = join(work, 'gen');
    const io = memoryIo(work);
    assert.equal(await runInit(['gen'], io), 0, io.stderr.join('\n'));
  });
  after(() => rm(work, { recursive: true, force: true }));

  test('a second run writes nothing (the files keep their mtimes) and --check passes', async () => {
    const before = (await stat(join(dir, 'src/kinds/website.ts'))).mtimeMs;
    const io = memoryIo(dir);
    assert.equal(await runGenerate([], io), 0);
    assert.deepEqual(io.stdout, ['3 generated files up to date']);
    assert.equal((await stat(join(dir, 'src/kinds/website.ts'))).mtimeMs, before);
    assert.equal(await runGenerate(['--check'], memoryIo(dir)), 0);
  });

  test('a schema change makes --check fail naming the stale CRD and types; generate brings both in step', async () => {
    const schemaPath = join(dir, 'kinds/website.yaml');
    const schema = await readFile(schemaPath, 'utf8');
    await writeFile(schemaPath, schema.replace('    replicas:\n', '    hostname:\n      type: string\n    replicas:\n'));
    const check = memoryIo(dir);
    assert.equal(await runGenerate(['--check'], check), 1);
    assert.deepEqual(check.stderr, [
      'kubeloop generate: 3 generated files are not up to date: crds/websites.example.com.yaml (stale), src/kinds/website.ts (stale), deploy/operator.yaml (stale); run `npx kubeloop generate`',
    ]);
    assert.equal(await runGenerate([], memoryIo(dir)), 0);
    assert.match(await readFile(join(dir, 'src/kinds/website.ts'), 'utf8'), /hostname\?: string;/);
    assert.match(await readFile(join(dir, 'crds/websites.example.com.yaml'), 'utf8'), /hostname:\n\s+type: string/);
    assert.equal(await runGenerate(['--check'], memoryIo(dir)), 0);
    await writeFile(schemaPath, schema);
    assert.equal(await runGenerate([], memoryIo(dir)), 0);
  });

  test('a hand-written CRD in crds/ becomes types too (the other direction)', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: backups.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: backups, singular: backup, kind: Backup}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {schedule: {type: string}}}
`;
    await writeFile(join(dir, 'crds/backups.example.com.yaml'), crd);
    const io = memoryIo(dir);
    assert.equal(await runGenerate([], io), 0, io.stderr.join('\n'));
    assert.ok(io.stdout.includes('wrote src/kinds/backup.ts'), io.stdout.join('\n'));
    assert.match(await readFile(join(dir, 'src/kinds/backup.ts'), 'utf8'), /schedule\?: string;/);
    assert.match(await readFile(join(dir, 'deploy/operator.yaml'), 'utf8'), /- backups\n/);
    await rm(join(dir, 'crds/backups.example.com.yaml'));
    await rm(join(dir, 'src/kinds/backup.ts'));
    assert.equal(await runGenerate([], memoryIo(dir)), 0);
  });

  test('a malformed CRD, a schema that cannot become types, and a bad kind schema each fail with one line naming the file', async () => {
    const cases: [string, string, RegExp][] = [
      ['crds/broken.yaml', 'kind: CustomResourceDefinition\nspec: [unclosed\n', /^kubeloop generate: crds\/broken\.yaml: not valid YAML or JSON: .* at line 3, column 1$/],
      ['crds/broken.yaml', 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x.example.com}\nspec: {group: example.com}\n', /^kubeloop generate: crds\/broken\.yaml: invalid CustomResourceDefinition: missing or invalid spec\.names\.kind/],
      ['kinds/ref.yaml', 'group: example.com\nversion: v1\nkind: Ref\nplural: refs\nspec:\n  type: object\n  properties:\n    target: {$ref: "#/definitions/x"}\n', /^kubeloop generate: crds\/refs\.example\.com\.yaml: CustomResourceDefinition refs\.example\.com.*\$ref/],
      ['kinds/bad.yaml', 'group: example.com\nversion: one\nkind: Bad\nplural: bads\nspec: {type: object}\n', /^kubeloop generate: kinds\/bad\.yaml: version "one": a version looks like v1/],
    ];
    for (const [file, text, message] of cases) {
      await writeFile(join(dir, file), text);
      const io = memoryIo(dir);
      assert.equal(await runGenerate([], io), 1, file);
      assert.equal(io.stderr.length, 1, io.stderr.join('\n'));
      assert.doesNotMatch(io.stderr[0] ?? '', /\n/, 'one line');
      assert.match(io.stderr[0] ?? '', message);
      assert.equal(await runGenerate(['--check'], memoryIo(dir)), 1);
      await rm(join(dir, file));
    }
    assert.equal(await runGenerate(['--check'], memoryIo(dir)), 0);
  });

  test('outside a project it says so (exit 1)', async () => {
    const io = memoryIo(work);
    assert.equal(await runGenerate([], io), 1);
    assert.match(io.stderr[0] ?? '', /^kubeloop generate: no package\.json in .*: run this in a project made by `kubeloop init`$/);
  });
});
