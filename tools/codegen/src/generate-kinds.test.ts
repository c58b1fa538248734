import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { CustomResourceDefinition } from '@kubeloop/resource';
import { isCodegenError } from './codegen-error.js';
import { parseCrdDocuments } from './crd-documents.js';
import { generateKindsSource } from './generate-kinds.js';
import { BackupRepositoryV1Kind, BackupScheduleKind } from './golden/backup-kinds.js';
import type { BackupSchedule } from './golden/backup-kinds.js';

// The same from src/ (tsx) and dist/ (compiled): the package directory.
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const fixture = 'fixtures/backup-crds.yaml';
const goldenPath = join(packageDir, 'src/golden/backup-kinds.ts');
const crds = parseCrdDocuments(readFileSync(join(packageDir, fixture), 'utf8'), fixture);

// Parsed library and workspace declarations, shared by every program of this file: parsing them is most of the cost.
const sourceFileCache = new Map<string, ts.SourceFile | undefined>();

/**
 * Type-checks `files` (name -> TypeScript source, placed in this package's src/ so that
 * `@kubeloop/resource` resolves from the workspace, to its built declarations) with a strict
 * program and returns the diagnostics as text, one per line.
 */
function typeCheck(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  };
  const virtual = new Map(Object.entries(files).map(([name, text]) => [join(packageDir, 'src', name), text]));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.fileExists = (f) => virtual.has(f) || fileExists(f);
  host.readFile = (f) => virtual.get(f) ?? readFile(f);
  host.getSourceFile = (f, language, ...rest) => {
    const text = virtual.get(f);
    if (text !== undefined) return ts.createSourceFile(f, text, language);
    if (!sourceFileCache.has(f)) sourceFileCache.set(f, getSourceFile(f, language, ...rest));
    return sourceFileCache.get(f);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('generateKindsSource', () => {
  test('generates the golden file from the fixture CRDs', () => {
    const generated = generateKindsSource(crds, { sources: [fixture] });
    // After an intended change: cd tools/codegen && npm run generate:golden
    assert.equal(generated, readFileSync(goldenPath, 'utf8'));
  });

  test('gives the same text for the same input', () => {
    assert.equal(generateKindsSource(crds), generateKindsSource(structuredClone(crds)));
  });

  test('the generated module type-checks in a strict program against @kubeloop/resource', () => {
    assert.ok(existsSync(join(packageDir, '../../packages/resource/dist/index.d.ts')), 'build @kubeloop/resource first (npx tsc -b)');
    assert.deepEqual(typeCheck({ 'check-kinds.ts': generateKindsSource(crds) }), []);
  });

  test('the generated types accept a valid object and reject a wrong one', () => {
    const usage = (schedule: string): string => `import type { BackupSchedule } from './check-kinds.js';
export const backup: BackupSchedule = {
  apiVersion: 'backup.kubeloop.dev/v1',
  kind: 'BackupSchedule',
  metadata: { name: 'nightly' },
  spec: { schedule: ${schedule}, targets: [{ claimName: 'data' }], retention: { maxAge: 30, keepLast: null } },
  status: { phase: 'Active', conditions: [] },
};
`;
    const kinds = generateKindsSource(crds);
    assert.deepEqual(typeCheck({ 'check-kinds.ts': kinds, 'check-usage.ts': usage("'0 3 * * *'") }), []);
    const wrong = typeCheck({ 'check-kinds.ts': kinds, 'check-usage.ts': usage('3') });
    assert.equal(wrong.length, 1);
    assert.match(wrong[0] ?? '', /Type 'number' is not assignable to type 'string'/);
  });

  test('an object round-trips through the generated kind codecs', () => {
    const object: BackupSchedule = {
      apiVersion: 'backup.kubeloop.dev/v1',
      kind: 'BackupSchedule',
      metadata: { name: 'nightly', namespace: 'shop' },
      spec: {
        schedule: '0 3 * * *',
        concurrencyPolicy: 'Forbid',
        targets: [{ claimName: 'data', paths: ['/var/lib/db'] }],
        retention: { maxAge: '720h', keepLast: null },
        hooks: { db: { pre: ['fsfreeze -f /data'], onError: 'Fail' } },
        'backup.kubeloop.dev/owner': 'team-a',
      },
      status: { phase: 'Active', lastBackupTime: '2024-05-01T03:00:12Z' },
    };
    for (const encoding of ['json', 'yaml'] as const) {
      const codec = BackupScheduleKind.codec(encoding);
      assert.deepEqual(codec.decode(codec.encode(object)), object);
    }
    assert.throws(() => BackupRepositoryV1Kind.codec().decode(JSON.stringify(object)), { code: 'CodecError' });
    assert.equal(BackupScheduleKind.apiVersion, 'backup.kubeloop.dev/v1');
    assert.deepEqual(BackupScheduleKind.shortNames, ['bks']);
    assert.equal(BackupRepositoryV1Kind.scope, 'Cluster');
  });

  test('one version keeps the plain names; several versions carry the version in them', () => {
    const repository = crds.filter((c) => c.spec?.names.kind === 'BackupRepository');
    const v1 = generateKindsSource(repository, { version: 'v1' });
    assert.match(v1, /^export interface BackupRepository extends KubeObject<BackupRepositorySpec, never> \{$/m);
    assert.match(v1, /^export const BackupRepositoryKind = defineKindFor<BackupRepository>\(\{$/m);
    assert.doesNotMatch(v1, /V1beta1/);
    assert.match(generateKindsSource(repository), /^export const BackupRepositoryV1beta1Kind = /m);
  });

  const failures: [string, () => string, RegExp][] = [
    ['a version no CRD serves', () => generateKindsSource(crds, { version: 'v1alpha1' }), /backupschedules\.backup\.kubeloop\.dev does not serve version v1alpha1 \(served: v1\)/],
    ['two CRDs with the same kind', () => generateKindsSource([crds[0]!, crds[0]!]), /both declare BackupSchedule; generate them into separate files/],
    ['a CRD with an invalid plural', () => generateKindsSource([withNames(crds[0]!, { plural: 'Backup_Schedules' })]), /invalid plural "Backup_Schedules"/],
    ['a version without a schema', () => generateKindsSource([withoutSchema(crds[0]!)]), /version v1: has no schema\.openAPIV3Schema/],
  ];
  for (const [name, run, message] of failures) {
    test(`${name} is a CodegenError`, () => assert.throws(run, (err: unknown) => isCodegenError(err) && message.test(err.message)));
  }
});

function withNames(crd: CustomResourceDefinition, names: Partial<NonNullable<CustomResourceDefinition['spec']>['names']>): CustomResourceDefinition {
  const copy = structuredClone(crd);
  Object.assign(copy.spec!.names, names);
  return copy;
}

function withoutSchema(crd: CustomResourceDefinition): CustomResourceDefinition {
  const copy = structuredClone(crd);
  for (const version of copy.spec!.versions) delete version.schema;
  return copy;
}

