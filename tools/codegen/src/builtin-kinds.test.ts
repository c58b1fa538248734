import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BUILTIN_KINDS_MODULE, currentBuiltinKindsModule } from './builtin-kinds-source.js';
import { generateBuiltinKinds } from './builtin-kinds.js';

describe('built-in kinds generated from the embedded API server’s data', () => {
  test('the checked-in module is what the server’s kind table and models generate now (npm run generate:builtin-kinds -w @kubeloop/codegen)', () => {
    assert.ok(readFileSync(BUILTIN_KINDS_MODULE, 'utf8') === currentBuiltinKindsModule(), `${BUILTIN_KINDS_MODULE} is out of step: run npm run generate:builtin-kinds -w @kubeloop/codegen`);
  });

  test('plain JSON types: times are strings, int-or-string and named quantities are number | string, embedded metadata needs no name', () => {
    const module = generateBuiltinKinds({
      source: 'a test',
      kinds: [
        { group: 'apps', version: 'v1', kind: 'Thing', plural: 'things', namespaced: true, model: 'V1Thing', shortNames: ['th'] },
        { group: '', version: 'v1', kind: 'Claim', plural: 'claims', namespaced: true, model: 'V1Claim' },
        { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: false, model: 'EventsV1Event' },
      ],
      models: {
        V1Thing: { fields: { metadata: 'V1ObjectMeta', spec: 'V1ThingSpec', status: 'V1ThingStatus', extra: '[]string' } },
        V1ThingSpec: { required: ['port'], fields: { port: 'int-or-string', at: 'time', resources: 'V1ResourceRequirements', claims: '[]V1Claim', labels: 'map[string]', template: 'V1ObjectMeta' } },
        V1Claim: { fields: { metadata: 'V1ObjectMeta', size: 'string' } },
        V1ThingStatus: { fields: { count: 'int32', ok: 'boolean', raw: 'any' } },
        V1ResourceRequirements: { fields: { limits: 'map[string]' } },
        EventsV1Event: { fields: { metadata: 'V1ObjectMeta', note: 'string' } },
      },
    });
    assert.match(module, /export interface V1ThingSpec \{\n {2}port: IntOrString;\n {2}at\?: string;\n {2}resources\?: V1ResourceRequirements;\n {2}claims\?: V1Claim\[\];\n {2}labels\?: Record<string, string>;\n {2}template\?: Partial<ObjectMeta>;\n\}/);
    assert.match(module, /export interface V1ResourceRequirements \{\n {2}limits\?: Record<string, Quantity>;\n\}/);
    assert.match(module, /export interface Thing extends KubeObject<V1ThingSpec, V1ThingStatus> \{\n {2}extra\?: string\[\];\n\}/);
    assert.match(module, /export const ThingKind = defineKindFor<Thing>\(\{ group: "apps", version: "v1", kind: "Thing", plural: "things", shortNames: \["th"\] \}\);/);
    // A kind embedded in another type (V1ThingSpec.claims): there it is the API type, metadata without a name.
    assert.match(module, /export interface V1Claim \{\n {2}metadata\?: Partial<ObjectMeta>;\n {2}size\?: string;\n\}/);
    assert.match(module, /export interface Claim extends KubeObject<never, never> \{\n {2}size\?: string;\n\}/);
    // `Event` is @kubeloop/resource's core Event: this kind's object type is named by its model.
    assert.match(module, /export interface EventsV1Event extends KubeObject<never, never> \{\n {2}note\?: string;\n\}/);
    assert.match(module, /export const EventsV1EventKind = defineKindFor<EventsV1Event>\(\{ group: "", version: "v1", kind: "Event", plural: "events", scope: 'Cluster' \}\);/);
    assert.match(module, /count\?: number;\n {2}ok\?: boolean;\n {2}raw\?: unknown;/);
  });
});
