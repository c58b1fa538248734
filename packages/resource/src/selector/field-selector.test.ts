import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSelector, escapeFieldValue, parseFieldSelector } from './field-selector.js';
import type { FieldRequirement } from './field-selector.js';
import { selectorErrorNaming } from './selector-error.test-helper.js';
import type { KubeObject } from '../object.js';

type Req = [field: string, operator: FieldRequirement['operator'], value: string];

const valid: { text: string; canonical: string; requirements: Req[]; allowedFields?: readonly string[] | 'any' }[] = [
  { text: '', canonical: '', requirements: [] },
  { text: 'metadata.name=web', canonical: 'metadata.name=web', requirements: [['metadata.name', '=', 'web']] },
  { text: 'metadata.name==web', canonical: 'metadata.name==web', requirements: [['metadata.name', '==', 'web']] },
  { text: 'metadata.name!=web', canonical: 'metadata.name!=web', requirements: [['metadata.name', '!=', 'web']] },
  { text: 'metadata.namespace=', canonical: 'metadata.namespace=', requirements: [['metadata.namespace', '=', '']] },
  {
    text: 'metadata.namespace=b,metadata.name=a',
    canonical: 'metadata.name=a,metadata.namespace=b',
    requirements: [['metadata.name', '=', 'a'], ['metadata.namespace', '=', 'b']],
  },
  { text: ' metadata.name = web ', canonical: 'metadata.name=web', requirements: [['metadata.name', '=', 'web']] },
  { text: 'metadata.name=a,,', canonical: 'metadata.name=a', requirements: [['metadata.name', '=', 'a']] },
  { text: 'metadata.name=a\\,b\\=c\\\\d', canonical: 'metadata.name=a\\,b\\=c\\\\d', requirements: [['metadata.name', '=', 'a,b=c\\d']] },
  { text: 'metadata.name=a!b', canonical: 'metadata.name=a!b', requirements: [['metadata.name', '=', 'a!b']] },
  { text: 'type=Opaque', canonical: 'type=Opaque', requirements: [['type', '=', 'Opaque']], allowedFields: ['type'] },
  { text: 'spec.nodeName!=n1', canonical: 'spec.nodeName!=n1', requirements: [['spec.nodeName', '!=', 'n1']], allowedFields: 'any' },
];

const invalid: { text: string; token: string; message?: RegExp; allowedFields?: readonly string[] | 'any' }[] = [
  { text: 'spec.replicas=1', token: 'spec.replicas', message: /field label not supported: "spec.replicas"/ },
  { text: 'metadata.name', token: 'metadata.name', message: /expected an operator/ },
  { text: 'metadata.name=a,b', token: 'b', message: /expected an operator/ },
  { text: '=web', token: '=web', message: /missing field name/ },
  { text: 'metadata.name=a=b', token: 'a=b', message: /unescaped '='/ },
  { text: 'metadata.name=a\\b', token: 'a\\b', message: /invalid escape sequence "\\b"/ },
  { text: 'metadata.name=a\\', token: 'a\\', message: /invalid escape sequence/ },
  { text: 'metadata.name=a', token: 'metadata.name', allowedFields: ['type'] },
  { text: 'metadata.name<a', token: 'metadata.name<a' },
  { text: 'metadata.uid=x', token: 'metadata.uid' },
  // A field name with '!', '=', ',', '\\' or spaces would print as another selector ("metadata.name!=" is a `!=`).
  { text: 'metadata.name! =', token: 'metadata.name!', message: /invalid field name "metadata.name!"/, allowedFields: 'any' },
  { text: 'spec node=x', token: 'spec node', message: /invalid field name/, allowedFields: 'any' },
  { text: 'a\\,b=x', token: 'a\\,b', message: /invalid field name/, allowedFields: 'any' },
];

function shape(sel: FieldSelector): Req[] {
  return sel.requirements.map((r) => [r.field, r.operator, r.value]);
}

describe('FieldSelector.parse', () => {
  for (const { text, canonical, requirements, allowedFields } of valid) {
    const options = allowedFields === undefined ? undefined : { allowedFields };
    test(`parses ${JSON.stringify(text)} and formats it as ${JSON.stringify(canonical)}`, () => {
      const sel = FieldSelector.parse(text, options);
      assert.deepEqual(shape(sel), requirements);
      assert.equal(sel.toString(), canonical);
      assert.equal(sel.isEmpty(), requirements.length === 0);
      assert.deepEqual(FieldSelector.parse(sel.toString(), options).requirements, sel.requirements);
    });
  }

  for (const { text, token, message, allowedFields } of invalid) {
    test(`rejects ${JSON.stringify(text)} naming ${JSON.stringify(token)}`, () => {
      assert.throws(() => FieldSelector.parse(text, allowedFields === undefined ? undefined : { allowedFields }), selectorErrorNaming('field', text, token, message));
    });
  }

  test('parseFieldSelector is FieldSelector.parse', () => {
    assert.equal(parseFieldSelector('metadata.namespace=x,metadata.name=y').toString(), 'metadata.name=y,metadata.namespace=x');
  });

  test('escapeFieldValue escapes backslash, comma and equals', () => {
    assert.equal(escapeFieldValue('a\\b,c=d'), 'a\\\\b\\,c\\=d');
  });
});

describe('FieldSelector matching', () => {
  const namespaced: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'prod' } };
  const cluster: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } };
  const event: KubeObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e1', namespace: 'prod' },
    involvedObject: { kind: 'Pod', name: 'p1' },
    count: 3,
    type: 'Warning',
  };

  const cases: { selector: string; obj: KubeObject; matches: boolean }[] = [
    { selector: '', obj: namespaced, matches: true },
    { selector: 'metadata.name=web', obj: namespaced, matches: true },
    { selector: 'metadata.name==web', obj: namespaced, matches: true },
    { selector: 'metadata.name=api', obj: namespaced, matches: false },
    { selector: 'metadata.name!=api', obj: namespaced, matches: true },
    { selector: 'metadata.name!=web', obj: namespaced, matches: false },
    { selector: 'metadata.namespace=prod,metadata.name=web', obj: namespaced, matches: true },
    { selector: 'metadata.namespace=dev,metadata.name=web', obj: namespaced, matches: false },
    { selector: 'metadata.namespace=', obj: cluster, matches: true },
    { selector: 'metadata.namespace=', obj: namespaced, matches: false },
    { selector: 'metadata.namespace!=prod', obj: cluster, matches: true },
    { selector: 'involvedObject.name=p1', obj: event, matches: true },
    { selector: 'involvedObject.kind!=Pod', obj: event, matches: false },
    { selector: 'count=3', obj: event, matches: true },
    { selector: 'type=Warning', obj: event, matches: true },
    { selector: 'involvedObject=x', obj: event, matches: false },
    { selector: 'involvedObject.constructor=', obj: event, matches: true },
    { selector: 'reason=', obj: event, matches: true },
  ];
  for (const { selector, obj, matches } of cases) {
    test(`${JSON.stringify(selector)} ${matches ? 'matches' : 'does not match'} ${obj.kind} ${obj.metadata.name}`, () => {
      assert.equal(FieldSelector.parse(selector, { allowedFields: 'any' }).matchesObject(obj), matches);
    });
  }

  test('matches reads fields through the callback and treats undefined as empty', () => {
    const fields: Record<string, string> = { 'metadata.name': 'a' };
    const read = (f: string): string | undefined => fields[f];
    assert.ok(FieldSelector.parse('metadata.name=a').matches(read));
    assert.ok(!FieldSelector.parse('metadata.name=b').matches(read));
    assert.ok(FieldSelector.parse('metadata.namespace=').matches(read));
    assert.ok(FieldSelector.parse('metadata.namespace!=x').matches(read));
  });

  test('everything() is empty and matches any object', () => {
    const sel = FieldSelector.everything();
    assert.ok(sel.isEmpty());
    assert.equal(sel.toString(), '');
    assert.ok(sel.matchesObject(namespaced));
    assert.ok(sel.matches(() => undefined));
  });
});
