import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch, maxJsonPatchArrayShifts, maxJsonPatchCopyBytes, maxJsonPatchOperations, parseJsonPointer } from './json-patch.js';
import { PatchError } from './patch-error.js';

type Doc = Record<string, unknown>;

function expectPatchError(fn: () => unknown, status: number, message?: RegExp | string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof PatchError, `expected a PatchError, got ${String(err)}`);
    assert.equal(err.status, status);
    assert.equal(err.reason, status === 400 ? 'BadRequest' : status === 413 ? 'RequestEntityTooLarge' : 'Invalid');
    if (typeof message === 'string') assert.equal(err.message, message);
    else if (message) assert.match(err.message, message);
    return true;
  });
}

describe('applyJsonPatch: the RFC 6902 appendix A examples', () => {
  const cases: { name: string; doc: Doc; patch: unknown[]; want: Doc }[] = [
    { name: 'A.1 adds an object member', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz', value: 'qux' }], want: { baz: 'qux', foo: 'bar' } },
    {
      name: 'A.2 adds an array element before the index',
      doc: { foo: ['bar', 'baz'] },
      patch: [{ op: 'add', path: '/foo/1', value: 'qux' }],
      want: { foo: ['bar', 'qux', 'baz'] },
    },
    { name: 'A.3 removes an object member', doc: { baz: 'qux', foo: 'bar' }, patch: [{ op: 'remove', path: '/baz' }], want: { foo: 'bar' } },
    {
      name: 'A.4 removes an array element',
      doc: { foo: ['bar', 'qux', 'baz'] },
      patch: [{ op: 'remove', path: '/foo/1' }],
      want: { foo: ['bar', 'baz'] },
    },
    {
      name: 'A.5 replaces a value',
      doc: { baz: 'qux', foo: 'bar' },
      patch: [{ op: 'replace', path: '/baz', value: 'boo' }],
      want: { baz: 'boo', foo: 'bar' },
    },
    {
      name: 'A.6 moves a value',
      doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      patch: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      want: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    },
    {
      name: 'A.7 moves an array element',
      doc: { foo: ['all', 'grass', 'cows', 'eat'] },
      patch: [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
      want: { foo: ['all', 'cows', 'eat', 'grass'] },
    },
    {
      name: 'A.8 passes a successful test',
      doc: { baz: 'qux', foo: ['a', 2, 'c'] },
      patch: [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
      ],
      want: { baz: 'qux', foo: ['a', 2, 'c'] },
    },
    {
      name: 'A.10 adds a nested member object',
      doc: { foo: 'bar' },
      patch: [{ op: 'add', path: '/child', value: { grandchild: {} } }],
      want: { foo: 'bar', child: { grandchild: {} } },
    },
    {
      name: 'A.11 ignores unrecognized members of an operation',
      doc: { foo: 'bar' },
      patch: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }],
      want: { foo: 'bar', baz: 'qux' },
    },
    {
      name: 'A.14 unescapes ~1 before ~0',
      doc: { '/': 9, '~1': 10 },
      patch: [{ op: 'test', path: '/~01', value: 10 }],
      want: { '/': 9, '~1': 10 },
    },
    {
      name: 'A.16 adds an array value',
      doc: { foo: ['bar'] },
      patch: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }],
      want: { foo: ['bar', ['abc', 'def']] },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(applyJsonPatch(c.doc, c.patch), c.want);
    });
  }

  test('A.9 fails a test that does not match with 422', () => {
    expectPatchError(() => applyJsonPatch({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]), 422, 'testing value /baz failed: test failed');
  });

  test('A.12 refuses to add to a nonexistent target with 422', () => {
    expectPatchError(() => applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]), 422, /doc is missing path: "\/baz\/bat"/);
  });

  test('A.15 tells a string from a number', () => {
    expectPatchError(() => applyJsonPatch({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]), 422);
  });
});

describe('applyJsonPatch: Kubernetes use', () => {
  const widget = (): Doc => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w1', finalizers: ['a.example.com/x', 'b.example.com/y'], resourceVersion: '7' },
    spec: { replicas: 1 },
  });

  test('removes a finalizer guarded by a test of its value', () => {
    const out = applyJsonPatch(widget(), [
      { op: 'test', path: '/metadata/finalizers/0', value: 'a.example.com/x' },
      { op: 'remove', path: '/metadata/finalizers/0' },
    ]);
    assert.deepEqual((out['metadata'] as Doc)['finalizers'], ['b.example.com/y']);
  });

  test('fails the guarded removal with a message naming the tested path when the finalizer moved', () => {
    expectPatchError(
      () =>
        applyJsonPatch(widget(), [
          { op: 'test', path: '/metadata/finalizers/0', value: 'b.example.com/y' },
          { op: 'remove', path: '/metadata/finalizers/0' },
        ]),
      422,
      /^testing value \/metadata\/finalizers\/0 failed/,
    );
  });

  test('does not mutate the input document, even when a later operation fails', () => {
    const doc = widget();
    const before = structuredClone(doc);
    applyJsonPatch(doc, [{ op: 'replace', path: '/spec/replicas', value: 3 }]);
    assert.throws(() =>
      applyJsonPatch(doc, [
        { op: 'replace', path: '/spec/replicas', value: 3 },
        { op: 'remove', path: '/spec/missing' },
      ]),
    );
    assert.deepEqual(doc, before);
  });

  test('appends with "-" and compares objects regardless of key order', () => {
    const out = applyJsonPatch(widget(), [
      { op: 'add', path: '/metadata/finalizers/-', value: 'c' },
      { op: 'test', path: '/spec', value: { replicas: 1 } },
      { op: 'add', path: '/spec/selector', value: { b: 1, a: 2 } },
      { op: 'test', path: '/spec/selector', value: { a: 2, b: 1 } },
    ]);
    assert.deepEqual((out['metadata'] as Doc)['finalizers'], ['a.example.com/x', 'b.example.com/y', 'c']);
  });

  test('copies values deeply so that later operations do not alias them', () => {
    const out = applyJsonPatch({ a: { x: [1] } }, [
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'add', path: '/b/x/-', value: 2 },
    ]);
    assert.deepEqual(out, { a: { x: [1] }, b: { x: [1, 2] } });
  });

  test('replaces the whole document with path ""', () => {
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }]), { b: 2 });
  });

  test('refuses a result that is not an object with 422', () => {
    expectPatchError(() => applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: [1] }]), 422);
  });

  test('refuses out-of-range and leading-zero indexes with 422', () => {
    expectPatchError(() => applyJsonPatch({ a: [1] }, [{ op: 'add', path: '/a/2', value: 0 }]), 422, /invalid index/);
    expectPatchError(() => applyJsonPatch({ a: [1, 2] }, [{ op: 'remove', path: '/a/01' }]), 422, /invalid index/);
    expectPatchError(() => applyJsonPatch({ a: [1] }, [{ op: 'replace', path: '/a/1', value: 0 }]), 422);
  });

  test('refuses to remove or replace a missing member with 422', () => {
    expectPatchError(() => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '/b' }]), 422, 'unable to remove nonexistent key: b: missing value');
    expectPatchError(() => applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/b', value: 1 }]), 422, /replace operation does not apply/);
    expectPatchError(() => applyJsonPatch({ a: 1 }, [{ op: 'move', from: '/b', path: '/c' }]), 422, /missing from path: \/b/);
  });

  test('refuses to move a value into its own child with 422', () => {
    expectPatchError(() => applyJsonPatch({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/c' }]), 422);
  });

  test('never writes through __proto__', () => {
    const out = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.deepEqual(Object.keys(out), ['__proto__']);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
  });

  const malformed: { name: string; patch: unknown }[] = [
    { name: 'an object instead of a list', patch: { op: 'add', path: '/a', value: 1 } },
    { name: 'null', patch: null },
    { name: 'an operation that is not an object', patch: ['add'] },
    { name: 'a missing op', patch: [{ path: '/a', value: 1 }] },
    { name: 'an unknown op', patch: [{ op: 'merge', path: '/a', value: 1 }] },
    { name: 'a missing path', patch: [{ op: 'remove' }] },
    { name: 'a path without a leading slash', patch: [{ op: 'remove', path: 'a' }] },
    { name: 'a bad escape in a path', patch: [{ op: 'remove', path: '/a~2' }] },
    { name: 'a missing value', patch: [{ op: 'add', path: '/a' }] },
    { name: 'a missing from', patch: [{ op: 'move', path: '/a' }] },
  ];
  for (const c of malformed) {
    test(`rejects ${c.name} with 400`, () => {
      expectPatchError(() => applyJsonPatch({ a: 1 }, c.patch), 400);
    });
  }
});

describe('parseJsonPointer', () => {
  test('splits and unescapes tokens', () => {
    assert.deepEqual(parseJsonPointer(''), []);
    assert.deepEqual(parseJsonPointer('/'), ['']);
    assert.deepEqual(parseJsonPointer('/a~1b/c~0d/0'), ['a/b', 'c~d', '0']);
  });
});

describe('applyJsonPatch: bounded work (kube-apiserver limits)', () => {
  test(`at most ${maxJsonPatchOperations} operations: one more is 413 before any is applied`, () => {
    const ops = Array.from({ length: maxJsonPatchOperations }, () => ({ op: 'test', path: '/a', value: 1 }));
    assert.deepEqual(applyJsonPatch({ a: 1 }, ops), { a: 1 });
    expectPatchError(() => applyJsonPatch({ a: 1 }, [...ops, { op: 'test', path: '/a', value: 1 }]), 413, `The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${maxJsonPatchOperations + 1}`);
  });

  test('copy operations may add at most 3 MiB of JSON in all: copying a document into its own child twenty times is refused, not built', () => {
    const doc: Doc = { spec: { data: 'x'.repeat(1000) } };
    // Each copy doubles /spec: the 12th would pass 3 MiB (about 1 KB * 2^12 in all).
    const doubling = Array.from({ length: 20 }, (_, i) => ({ op: 'copy', from: '/spec', path: `/spec/c${i}` }));
    expectPatchError(() => applyJsonPatch(doc, doubling), 422, `Unable to copy, the accumulated size increase of copy operations exceeds ${maxJsonPatchCopyBytes}`);
    // Copies that add less than the limit in all are fine.
    const copied = applyJsonPatch(doc, doubling.slice(0, 8)) as { spec: Record<string, unknown> };
    assert.equal(Object.keys(copied.spec).length, 9);
  });

  test('no operation may nest the document deeper than 1000 levels: adds at deep paths and copies into their own child are 422', () => {
    const chain = (depth: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < depth; i++) v = { a: v };
      return v;
    };
    // 999 levels below the root object: a 1000-level document is accepted.
    assert.ok(applyJsonPatch({}, [{ op: 'add', path: '/x', value: chain(998) }]));
    expectPatchError(() => applyJsonPatch({}, [{ op: 'add', path: '/x', value: chain(1000) }]), 422, /nested deeper than 1000 levels at \/x/);
    // Copying a subtree into its own deepest child adds its depth each time: 400, 801, then 1,602 refused.
    const doc = { s: chain(400) } as Doc;
    const deepest = `/s${'/a'.repeat(399)}/b`;
    const growing = [
      { op: 'copy', from: '/s', path: deepest },
      { op: 'copy', from: '/s', path: `${deepest}${'/a'.repeat(399)}/b` },
    ];
    assert.ok(applyJsonPatch(doc, growing.slice(0, 1)));
    expectPatchError(() => applyJsonPatch(doc, growing), 422, /nested deeper than 1000 levels/);
  });

  test('moves are depth-checked once, on the result: a patch may nest a value past 1000 levels and bring it back, but not end there', () => {
    const chain = (depth: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < depth; i++) v = { a: v };
      return v;
    };
    const doc = { s: chain(600), t: chain(600) } as Doc;
    const deepest = `/s${'/a'.repeat(599)}/t`;
    const down = { op: 'move', from: '/t', path: deepest };
    expectPatchError(() => applyJsonPatch(doc, [down]), 422, 'move operation does not apply: the result would be nested deeper than 1000 levels');
    assert.deepEqual(applyJsonPatch(doc, [down, { op: 'move', from: deepest, path: '/t' }]), doc);
    // A copy never clones what a move nested too deep (cloning recurses): 422, not a stack overflow.
    expectPatchError(() => applyJsonPatch(doc, [down, { op: 'copy', from: '/s', path: '/u' }]), 422, /copy operation does not apply: the result would be nested deeper than 1000 levels at \/u/);
  });

  test(`inserts and removes may shift at most ${maxJsonPatchArrayShifts} array elements in all (422 past it)`, () => {
    const doc: Doc = { items: Array.from({ length: 100_001 }, (_, i) => i) };
    // Each removal of the first of 100,001 elements shifts the 100,000 after it.
    const removeFirst = (count: number): unknown[] => Array.from({ length: count }, () => ({ op: 'remove', path: '/items/0' }));
    const atLimit = applyJsonPatch(doc, removeFirst(maxJsonPatchArrayShifts / 100_000)) as { items: number[] };
    assert.equal(atLimit.items[0], 100);
    expectPatchError(() => applyJsonPatch(doc, removeFirst(maxJsonPatchArrayShifts / 100_000 + 1)), 422, `Unable to apply, the array elements shifted by inserts and removes exceed ${maxJsonPatchArrayShifts}`);
    // At the end of an array nothing shifts: appends and removals of the last element are free.
    const atEnd = Array.from({ length: 10_000 }, (_, i) => (i % 2 === 0 ? { op: 'add', path: '/items/-', value: 0 } : { op: 'remove', path: '/items/100001' }));
    assert.equal((applyJsonPatch(doc, atEnd) as { items: number[] }).items.length, 100_001);
  });
});
