import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch } from './merge-patch.js';
import { PatchError } from './patch-error.js';

describe('applyMergePatch: the RFC 7386 appendix A examples', () => {
  const cases: { doc: Record<string, unknown>; patch: Record<string, unknown>; want: Record<string, unknown> }[] = [
    { doc: { a: 'b' }, patch: { a: 'c' }, want: { a: 'c' } },
    { doc: { a: 'b' }, patch: { b: 'c' }, want: { a: 'b', b: 'c' } },
    { doc: { a: 'b' }, patch: { a: null }, want: {} },
    { doc: { a: 'b', b: 'c' }, patch: { a: null }, want: { b: 'c' } },
    { doc: { a: ['b'] }, patch: { a: 'c' }, want: { a: 'c' } },
    { doc: { a: 'c' }, patch: { a: ['b'] }, want: { a: ['b'] } },
    { doc: { a: { b: 'c' } }, patch: { a: { b: 'd', c: null } }, want: { a: { b: 'd' } } },
    { doc: { a: [{ b: 'c' }] }, patch: { a: [1] }, want: { a: [1] } },
    { doc: { e: null }, patch: { a: 1 }, want: { e: null, a: 1 } },
    { doc: {}, patch: { a: { bb: { ccc: null } } }, want: { a: { bb: {} } } },
  ];
  for (const c of cases) {
    test(`merges ${JSON.stringify(c.patch)} into ${JSON.stringify(c.doc)}`, () => {
      assert.deepEqual(applyMergePatch(c.doc, c.patch), c.want);
    });
  }
});

describe('applyMergePatch: Kubernetes use', () => {
  test('merges labels, deletes one with null and replaces lists', () => {
    const doc = { metadata: { name: 'w', labels: { a: '1', b: '2' }, finalizers: ['x', 'y'] }, spec: { replicas: 1 } };
    const out = applyMergePatch(doc, { metadata: { labels: { b: null, c: '3' }, finalizers: ['y'] }, spec: { replicas: 2 } });
    assert.deepEqual(out, { metadata: { name: 'w', labels: { a: '1', c: '3' }, finalizers: ['y'] }, spec: { replicas: 2 } });
  });

  test('does not mutate the document or alias the patch', () => {
    const doc = { spec: { a: { b: 1 } } };
    const patch = { spec: { c: { d: [1] } } };
    const out = applyMergePatch(doc, patch);
    assert.deepEqual(doc, { spec: { a: { b: 1 } } });
    ((out['spec'] as Record<string, { d: number[] }>)['c']!.d).push(2);
    assert.deepEqual(patch.spec.c.d, [1]);
  });

  for (const patch of [null, 'bar', 1, ['a']]) {
    test(`rejects the non-object patch ${JSON.stringify(patch)} with 400`, () => {
      assert.throws(() => applyMergePatch({ a: 'foo' }, patch), (err: unknown) => err instanceof PatchError && err.status === 400);
    });
  }
});
