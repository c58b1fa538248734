/**
 * YAML bodies in linear time: 40,000 keys in one mapping (create and apply) no longer hold the
 * server (the parser's duplicate check was quadratic: 9 s), large real YAML is parsed in a worker
 * thread, JSON sent as YAML takes the JSON parser; repeated keys are still refused with the real
 * server's words, whichever path found them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { underFreezeProbe } from '../freeze-probe.test-helper.js';
import { call } from '../testing/test-client.js';
import type { TestResponse } from '../testing/test-client.js';
import { offLoopThresholdChars } from '../http/request-body-parser.js';
import { parseYamlText } from './yaml-text.js';

const configMaps = '/api/v1/namespaces/default/configmaps';

/** A ConfigMap manifest in block YAML with `keys` data keys (about 12 bytes each). */
function configMapYaml(name: string, keys: number, extra = ''): string {
  const data = Array.from({ length: keys }, (_, i) => `  k${i}: v`).join('\n');
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${data}\n${extra}`;
}

describe('YAML request bodies', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer();
  });
  after(() => server.stop());

  // The parse is off the event loop (it was quadratic: 9 s; 25 s and 47 s under load), and so is an
  // apply's merge with its field sets; the worker's answers are parsed a few pieces per turn, and the
  // write's other steps (decoding, checks, storing) run in turns of their own, 10 to 20 ms each for
  // 40,000 keys on a quiet machine: an unrelated GET waits 25 to 50 ms.
  for (const [verb, contentType] of [
    ['create', 'application/yaml'],
    ['apply', 'application/apply-patch+yaml'],
  ] as const) {
    test(`a ${verb} with 40,000 keys in one mapping is served while other requests go on`, async (t) => {
      const name = `wide-${verb}`;
      const body = configMapYaml(name, 40_000);
      const send = (): Promise<TestResponse> =>
        verb === 'create' ? call(server.url, 'POST', configMaps, body, { contentType }) : call(server.url, 'PATCH', `${configMaps}/${name}?fieldManager=t`, body, { contentType });
      const probed = await underFreezeProbe(server.url, send);
      const bound = probed.boundMs;
      assert.equal(probed.res.status, 201, probed.res.text.slice(0, 300));
      assert.equal(Object.keys(probed.res.body.data).length, 40_000);
      t.diagnostic(`${verb}: ${Math.round(probed.elapsedMs)} ms, an unrelated GET waited at most ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms), ${Math.round(probed.worstNewConnectionGetMs)} ms on new connections`);
      assert.ok(probed.worstGetMs < bound, `an unrelated GET waited ${Math.round(probed.worstGetMs)} ms (bound ${bound} ms; the ${verb} took ${Math.round(probed.elapsedMs)} ms)`);
      // A new connection waits a turn more (its accept).
      assert.ok(probed.worstNewConnectionGetMs < 2 * bound, `a GET on a new connection waited ${Math.round(probed.worstNewConnectionGetMs)} ms (bound ${2 * bound} ms)`);
    });
  }

  // kube-apiserver's words (sigs.k8s.io/yaml), whichever path found the key: the parser in-thread
  // (small YAML), in the worker (large YAML), or JSON sent as YAML (the JSON parser finds it, the
  // YAML path words it).
  test('a repeated key is refused with its line, in a small body, a large one (the worker) and JSON sent as YAML, created or applied', async () => {
    const createMessage = (line: number, key: string): string => `the object provided is unrecognized (must be of type ConfigMap): yaml: unmarshal errors:\n  line ${line}: key "${key}" already set in map`;
    const applyMessage = (line: number, key: string): string => `error decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line ${line}: key "${key}" already set in map`;
    const largeJson = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'twice-json' }, data: { a: 'x' } }, null, 1).replace('"a": "x"', `${Array.from({ length: 2_000 }, (_, i) => `"k${i}": "v"`).join(',\n')},\n"a": "x",\n"a": "y"`);
    const bodies: [string, string, number, string][] = [
      ['small YAML', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: twice\ndata:\n  a: x\n  a: y\n', 7, 'a'],
      ['large YAML', configMapYaml('twice', 10_000, 'extra: 1\nextra: 2\n'), 10_007, 'extra'],
      ['small JSON', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"twice"},"data":{"a":"x","a":"y"}}', 1, 'a'],
      ['large JSON', largeJson, 2_009, 'a'],
    ];
    assert.ok((bodies[1]?.[1].length ?? 0) > offLoopThresholdChars && largeJson.length > offLoopThresholdChars, 'large enough for the worker');
    for (const [what, body, line, key] of bodies) {
      const created = await call(server.url, 'POST', configMaps, body, { contentType: 'application/yaml' });
      assert.equal(created.status, 400, `${what}: ${created.text.slice(0, 300)}`);
      assert.equal(created.body.message, createMessage(line, key), what);
      const applied = await call(server.url, 'PATCH', `${configMaps}/twice?fieldManager=t`, body.replace('twice-json', 'twice'), { contentType: 'application/apply-patch+yaml' });
      assert.equal(applied.status, 400, `${what}: ${applied.text.slice(0, 300)}`);
      assert.equal(applied.body.message, applyMessage(line, key), what);
    }
    assert.equal((await call(server.url, 'GET', `${configMaps}/twice`)).status, 404);
  });

  test('a large YAML apply and a large JSON apply give the same object', async () => {
    const yaml = configMapYaml('same', 8_000);
    const fromYaml = await call(server.url, 'PATCH', `${configMaps}/same?fieldManager=t`, yaml, { contentType: 'application/apply-patch+yaml' });
    assert.equal(fromYaml.status, 201, fromYaml.text.slice(0, 300));
    const asJson = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'same-json' }, data: fromYaml.body.data });
    const fromJson = await call(server.url, 'PATCH', `${configMaps}/same-json?fieldManager=t`, asJson, { contentType: 'application/apply-patch+yaml' });
    assert.equal(fromJson.status, 201);
    assert.deepEqual(fromJson.body.data, fromYaml.body.data);
  });
});

describe('parseYamlText', () => {
  test('JSON with a repeated key and JSON too deep take the YAML path words', () => {
    const twice = parseYamlText('{"a": 1, "a": 2}');
    assert.deepEqual(twice, { ok: false, problem: { kind: 'duplicate-key', key: '"a"', line: 1 } });
    const deep = parseYamlText(`{"a":${'['.repeat(1_100)}${']'.repeat(1_100)}}`);
    assert.deepEqual(deep, { ok: false, problem: { kind: 'too-deep' } });
  });
});
