import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileJsonPath } from './printer-jsonpath.js';

const playlist = {
  metadata: { name: 'p1', labels: { 'app.kubernetes.io/name': 'demo' } },
  spec: { title: 'Morning', items: [{ value: 'a' }, { value: 'b' }], retries: 3, enabled: false },
  status: {
    conditions: [
      { type: 'Synced', status: 'False', count: 1 },
      { type: 'Ready', status: 'True', count: 2 },
    ],
  },
};

function select(path: string, root: unknown = playlist): unknown[] {
  const compiled = compileJsonPath(path);
  assert.ok(compiled, `${path} compiles`);
  return compiled(root);
}

describe('printer column JSONPath', () => {
  test('follows dotted fields and keeps values of every JSON type', () => {
    assert.deepEqual(select('.spec.title'), ['Morning']);
    assert.deepEqual(select('.spec.retries'), [3]);
    assert.deepEqual(select('.spec.enabled'), [false]);
    assert.deepEqual(select('$.metadata.name'), ['p1']);
    assert.deepEqual(select('{.metadata.name}'), ['p1']);
  });

  test('selects nothing for a missing key instead of failing', () => {
    assert.deepEqual(select('.spec.missing.deeper'), []);
    assert.deepEqual(select('.spec.title.length'), []);
  });

  test('reads quoted keys, indexes (also from the end) and wildcards', () => {
    assert.deepEqual(select(".metadata.labels['app.kubernetes.io/name']"), ['demo']);
    assert.deepEqual(select('.metadata["labels"]["app.kubernetes.io/name"]'), ['demo']);
    assert.deepEqual(select('.spec.items[1].value'), ['b']);
    assert.deepEqual(select('.spec.items[-1].value'), ['b']);
    assert.deepEqual(select('.spec.items[5].value'), []);
    assert.deepEqual(select('.spec.items[*].value'), ['a', 'b']);
  });

  test('filters list elements by a field compared with a string, number or boolean literal', () => {
    assert.deepEqual(select('.status.conditions[?(@.type=="Ready")].status'), ['True']);
    assert.deepEqual(select(".status.conditions[?(@.type=='Ready')].status"), ['True']);
    assert.deepEqual(select('.status.conditions[?(@.type != "Ready")].status'), ['False']);
    assert.deepEqual(select('.status.conditions[?(@.count==2)].type'), ['Ready']);
    assert.deepEqual(select('.status.conditions[?(@.type=="Gone")].status'), []);
  });

  test('refuses paths outside the subset', () => {
    for (const path of ['spec.title', '.spec..title', '.spec.items[?(@.value=~/a/)]', '.spec.items[0', '.spec.items[1:2]', 'range .items']) {
      assert.equal(compileJsonPath(path), undefined, path);
    }
  });
});
