import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinKinds } from './builtin-kind-table.js';
import { kubernetesModels, modelsGeneratedFrom } from './kubernetes-models.generated.js';
import { parseFieldType } from './model-definition.js';
import type { FieldType } from './model-definition.js';
import { patchMergeKeys } from './patch-merge-keys.js';
import { protobufMessageName } from './protobuf-layout.js';
import { protobufLayouts } from './protobuf-layouts.generated.js';

const generator = fileURLToPath(new URL('../../scripts/generate-builtin-models.mjs', import.meta.url));
const installedClientNode = (createRequire(import.meta.url)('@kubernetes/client-node/package.json') as { version: string }).version;

function elementModel(type: FieldType): string | undefined {
  if ('list' in type) return elementModel(type.list);
  if ('map' in type) return elementModel(type.map);
  return 'model' in type ? type.model : undefined;
}

describe('the built-in model data', () => {
  test('the committed model definitions are what the generator makes from @kubernetes/client-node (a newer one only adds to them)', async () => {
    if (installedClientNode === modelsGeneratedFrom) {
      // Exits non-zero (and the call throws) when the file is out of step.
      const output = execFileSync(process.execPath, [generator, '--check'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      assert.equal(output, '');
      return;
    }
    // Another client-node (the Node 24 leg's 2.x): every committed field must still be there with its type.
    const dir = await mkdtemp(join(tmpdir(), 'kubeloop-models-'));
    try {
      const out = join(dir, 'models.ts');
      execFileSync(process.execPath, [generator, '--out', out], { stdio: 'ignore' });
      const fresh = await readFile(out, 'utf8');
      for (const [name, model] of Object.entries(kubernetesModels)) {
        const line = fresh.split('\n').find((l) => l.startsWith(`  ${name}: `));
        assert.ok(line, `client-node ${installedClientNode} has no model ${name}`);
        const freshModel = JSON.parse(line.slice(name.length + 4, -1)) as { fields: Record<string, string> };
        for (const [field, type] of Object.entries(model.fields)) assert.equal(freshModel.fields[field], type, `${name}.${field}`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('every served kind has a model, and its model declares apiVersion, kind and metadata', () => {
    for (const kind of builtinKinds) {
      const model = kubernetesModels[kind.model];
      assert.ok(model, `${kind.kind}: no model ${kind.model}`);
      for (const field of ['apiVersion', 'kind', 'metadata']) assert.ok(model.fields[field], `${kind.model}.${field}`);
    }
  });

  test('every patch merge key names a list field of a generated model, and keyed lists hold objects with that key', () => {
    for (const [path, mergeKey] of Object.entries(patchMergeKeys)) {
      const [modelName, field] = path.split('.') as [string, string];
      const typeText = kubernetesModels[modelName]?.fields[field];
      assert.ok(typeText, `${path} is not a field of the generated models`);
      const type = parseFieldType(typeText);
      assert.ok('list' in type, `${path} is not a list`);
      if (mergeKey) {
        const item = elementModel(type);
        assert.ok(item && kubernetesModels[item]?.fields[mergeKey], `${path}: items have no field ${mergeKey}`);
      }
    }
  });

  test("every protobuf field of a served kind's messages is a field of the same model, with the same shape", () => {
    const checked = new Set<string>();
    const walk = (message: string, model: string): void => {
      const key = `${message}=${model}`;
      if (checked.has(key)) return;
      checked.add(key);
      const layout = protobufLayouts[message];
      const definition = kubernetesModels[model];
      assert.ok(layout, `no protobuf layout ${message}`);
      assert.ok(definition, `no model ${model}`);
      for (const [number, [name, protoType, flag]] of Object.entries(layout)) {
        const nestedMessage = protoType.replace(/^map<(.*)>$/, '$1');
        if (flag === 'inline') {
          walk(nestedMessage, model);
          continue;
        }
        const typeText = definition.fields[name];
        assert.ok(typeText, `${message} field ${number} (${name}) is not a field of ${model}`);
        const type = parseFieldType(typeText);
        assert.equal(flag === 'repeated', 'list' in type, `${message}.${name}: repeated in one and not the other`);
        const nested = elementModel(type);
        if (nested && nestedMessage.startsWith('k8s.io.api.')) walk(nestedMessage, nested);
      }
    };
    for (const kind of builtinKinds.filter((row) => row.protobuf !== false)) walk(protobufMessageName(kind.group ? `${kind.group}/${kind.version}` : kind.version, kind.kind), kind.model);
    assert.ok(checked.size > 100, `only ${checked.size} messages checked`);
  });
});
