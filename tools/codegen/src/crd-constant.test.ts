import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kindFromCustomResourceDefinition } from '@kubeloop/resource';
import { parseCrdDocuments } from './crd-documents.js';
import { generateKindsSource } from './generate-kinds.js';
import { BackupRepositoryCrd, BackupRepositoryV1Kind, BackupScheduleCrd, BackupScheduleKind } from './golden/backup-kinds.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const fixture = 'fixtures/backup-crds.yaml';
const crds = parseCrdDocuments(readFileSync(join(packageDir, fixture), 'utf8'), fixture);

describe('the generated CRD constants', () => {
  test('are the CRDs of the input, field for field, without what the server sets', () => {
    for (const constant of [BackupScheduleCrd, BackupRepositoryCrd]) {
      const source = crds.find((c) => c.metadata.name === constant.metadata.name);
      assert.ok(source, constant.metadata.name);
      assert.deepEqual(constant.spec, source.spec);
      assert.deepEqual(constant.metadata, { name: source.metadata.name, ...(source.metadata.labels ? { labels: source.metadata.labels } : {}), ...(source.metadata.annotations ? { annotations: source.metadata.annotations } : {}) });
      assert.equal('status' in constant, false);
    }
  });

  test('define the same kinds as the generated Kind constants, so the two cannot drift', () => {
    const schedule = kindFromCustomResourceDefinition(BackupScheduleCrd);
    assert.deepEqual([schedule.apiVersion, schedule.kind, schedule.plural, schedule.scope], [BackupScheduleKind.apiVersion, BackupScheduleKind.kind, BackupScheduleKind.plural, BackupScheduleKind.scope]);
    const repository = kindFromCustomResourceDefinition(BackupRepositoryCrd, { version: 'v1' });
    assert.deepEqual([repository.apiVersion, repository.kind, repository.plural], [BackupRepositoryV1Kind.apiVersion, BackupRepositoryV1Kind.kind, BackupRepositoryV1Kind.plural]);
  });

  test('one constant per CRD, also when only one version is generated', () => {
    const source = generateKindsSource(crds, { version: 'v1' });
    assert.equal(source.match(/^export const \w+Crd: CustomResourceDefinition = /gm)?.length, 2);
  });
});
