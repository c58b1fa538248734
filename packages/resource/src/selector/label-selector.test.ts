import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelSelector, parseLabelSelector } from './label-selector.js';
import type { LabelRequirement } from './label-selector.js';
import { isSelectorError } from '../errors.js';
import type { SelectorError } from '../errors.js';
import { selectorErrorNaming } from './selector-error.test-helper.js';

type Req = [key: string, operator: LabelRequirement['operator'], values?: string[]];

const valid: { text: string; canonical: string; requirements: Req[] }[] = [
  { text: '', canonical: '', requirements: [] },
  { text: '   ', canonical: '', requirements: [] },
  { text: 'app=web', canonical: 'app=web', requirements: [['app', 'Equals', ['web']]] },
  { text: 'app==web', canonical: 'app==web', requirements: [['app', 'DoubleEquals', ['web']]] },
  { text: 'app!=web', canonical: 'app!=web', requirements: [['app', 'NotEquals', ['web']]] },
  { text: 'app', canonical: 'app', requirements: [['app', 'Exists']] },
  { text: '!app', canonical: '!app', requirements: [['app', 'DoesNotExist']] },
  { text: '! app', canonical: '!app', requirements: [['app', 'DoesNotExist']] },
  { text: 'env in (prod,dev)', canonical: 'env in (dev,prod)', requirements: [['env', 'In', ['dev', 'prod']]] },
  { text: 'env notin (prod)', canonical: 'env notin (prod)', requirements: [['env', 'NotIn', ['prod']]] },
  { text: 'env in(a,a,b)', canonical: 'env in (a,b)', requirements: [['env', 'In', ['a', 'b']]] },
  { text: ' env  in  ( a , b ) ', canonical: 'env in (a,b)', requirements: [['env', 'In', ['a', 'b']]] },
  { text: 'env in ()', canonical: 'env in ()', requirements: [['env', 'In', ['']]] },
  { text: 'env in (a,)', canonical: 'env in (,a)', requirements: [['env', 'In', ['', 'a']]] },
  { text: 'app=', canonical: 'app=', requirements: [['app', 'Equals', ['']]] },
  { text: 'app!=,tier', canonical: 'app!=,tier', requirements: [['app', 'NotEquals', ['']], ['tier', 'Exists']] },
  { text: 'b=1,a=2', canonical: 'a=2,b=1', requirements: [['a', 'Equals', ['2']], ['b', 'Equals', ['1']]] },
  {
    text: 'example.com/app=web, !legacy ,tier in (fe,be)',
    canonical: 'example.com/app=web,!legacy,tier in (be,fe)',
    requirements: [['example.com/app', 'Equals', ['web']], ['legacy', 'DoesNotExist'], ['tier', 'In', ['be', 'fe']]],
  },
  { text: 'in in (in)', canonical: 'in in (in)', requirements: [['in', 'In', ['in']]] },
  { text: 'a=notin', canonical: 'a=notin', requirements: [['a', 'Equals', ['notin']]] },
  { text: 'A_b.c-D=x_Y.z-1', canonical: 'A_b.c-D=x_Y.z-1', requirements: [['A_b.c-D', 'Equals', ['x_Y.z-1']]] },
  { text: `k=${'v'.repeat(63)}`, canonical: `k=${'v'.repeat(63)}`, requirements: [['k', 'Equals', ['v'.repeat(63)]]] },
  { text: 'a\t=\nb', canonical: 'a=b', requirements: [['a', 'Equals', ['b']]] },
  { text: 'x=1,x!=2', canonical: 'x=1,x!=2', requirements: [['x', 'Equals', ['1']], ['x', 'NotEquals', ['2']]] },
];

const invalid: { text: string; token: string; message?: RegExp }[] = [
  { text: 'a in (b', token: 'b', message: /^invalid label selector "a in \(b": expected '\)' after "b"$/ },
  { text: 'a in b', token: 'b', message: /expected '\('/ },
  { text: 'a in', token: 'in', message: /expected '\(' after "in"/ },
  { text: 'a in (b c)', token: 'c', message: /expected ',' or '\)', found "c"/ },
  { text: 'a notin (b,=)', token: '=' },
  { text: 'a b', token: 'b', message: /expected an operator/ },
  { text: 'a=b c', token: 'c', message: /expected ',' or end of selector after "b", found "c"/ },
  { text: 'a=b,', token: ',', message: /expected a requirement after ','/ },
  { text: ',a=b', token: ',', message: /expected a label key, found ","/ },
  { text: 'a=b,,c=d', token: ',' },
  { text: '=b', token: '=' },
  { text: '!', token: '!', message: /expected a label key after "!"/ },
  { text: '!a=b', token: '=' },
  { text: 'a=(b)', token: '(', message: /expected a label value, found "\("/ },
  { text: 'a>1', token: '>', message: /not supported/ },
  { text: 'a<1', token: '<' },
  { text: '-a=b', token: '-a', message: /invalid label key "-a"/ },
  { text: 'a/b/c=d', token: 'a/b/c' },
  { text: 'Example.com/a=b', token: 'Example.com/a', message: /DNS subdomain/ },
  { text: '/a=b', token: '/a' },
  { text: `${'k'.repeat(64)}=v`, token: 'k'.repeat(64), message: /63/ },
  { text: 'a=-b', token: '-b', message: /invalid label value "-b"/ },
  { text: `a=${'v'.repeat(64)}`, token: 'v'.repeat(64) },
  { text: 'a in (x,b_)', token: 'b_' },
  { text: 'a=b=c', token: '=' },
];

function shape(sel: LabelSelector): Req[] {
  return sel.requirements.map((r) => (r.values.length === 0 ? [r.key, r.operator] : [r.key, r.operator, [...r.values]]));
}

describe('LabelSelector.parse', () => {
  for (const { text, canonical, requirements } of valid) {
    test(`parses ${JSON.stringify(text)} into its requirements and formats it canonically`, () => {
      const sel = LabelSelector.parse(text);
      assert.deepEqual(shape(sel), requirements);
      assert.equal(sel.toString(), canonical);
      assert.equal(sel.isEmpty(), requirements.length === 0);
    });
    test(`round-trips ${JSON.stringify(text)} through toString`, () => {
      const sel = LabelSelector.parse(text);
      const again = LabelSelector.parse(sel.toString());
      assert.deepEqual(again.requirements, sel.requirements);
      assert.equal(again.toString(), sel.toString());
    });
  }

  for (const { text, token, message } of invalid) {
    test(`rejects ${JSON.stringify(text)} naming the token ${JSON.stringify(token)}`, () => {
      assert.throws(() => LabelSelector.parse(text), selectorErrorNaming('label', text, token, message));
    });
  }

  test('accepts an empty value after == like Kubernetes', () => {
    assert.deepEqual(shape(LabelSelector.parse('a==')), [['a', 'DoubleEquals', ['']]]);
  });

  test('parseLabelSelector is LabelSelector.parse', () => {
    assert.equal(parseLabelSelector('b,a').toString(), 'a,b');
  });

  test('the requirements of a parsed selector are frozen', () => {
    const sel = LabelSelector.parse('a in (x,y)');
    assert.ok(Object.isFrozen(sel.requirements));
    assert.ok(Object.isFrozen(sel.requirements[0]));
    assert.ok(Object.isFrozen(sel.requirements[0]!.values));
  });
});

describe('LabelSelector.matches', () => {
  const cases: { selector: string; labels: Record<string, string> | undefined; matches: boolean }[] = [
    { selector: '', labels: undefined, matches: true },
    { selector: '', labels: { a: '1' }, matches: true },
    { selector: 'a=1', labels: { a: '1' }, matches: true },
    { selector: 'a=1', labels: { a: '2' }, matches: false },
    { selector: 'a=1', labels: {}, matches: false },
    { selector: 'a==1', labels: { a: '1' }, matches: true },
    { selector: 'a!=1', labels: { a: '2' }, matches: true },
    { selector: 'a!=1', labels: { a: '1' }, matches: false },
    { selector: 'a!=1', labels: {}, matches: true },
    { selector: 'a!=1', labels: undefined, matches: true },
    { selector: 'a=', labels: { a: '' }, matches: true },
    { selector: 'a=', labels: {}, matches: false },
    { selector: 'a in (1,2)', labels: { a: '2' }, matches: true },
    { selector: 'a in (1,2)', labels: { a: '3' }, matches: false },
    { selector: 'a in (1,2)', labels: {}, matches: false },
    { selector: 'a notin (1,2)', labels: { a: '3' }, matches: true },
    { selector: 'a notin (1,2)', labels: { a: '1' }, matches: false },
    { selector: 'a notin (1,2)', labels: {}, matches: true },
    { selector: 'a', labels: { a: '' }, matches: true },
    { selector: 'a', labels: { b: 'x' }, matches: false },
    { selector: '!a', labels: { b: 'x' }, matches: true },
    { selector: '!a', labels: { a: 'x' }, matches: false },
    { selector: 'a=1,b=2', labels: { a: '1', b: '2' }, matches: true },
    { selector: 'a=1,b=2', labels: { a: '1', b: '3' }, matches: false },
    { selector: 'constructor', labels: {}, matches: false },
    { selector: '!toString', labels: {}, matches: true },
    { selector: 'example.com/app=web', labels: { 'example.com/app': 'web' }, matches: true },
  ];
  for (const { selector, labels, matches } of cases) {
    test(`${JSON.stringify(selector)} ${matches ? 'matches' : 'does not match'} ${JSON.stringify(labels)}`, () => {
      assert.equal(LabelSelector.parse(selector).matches(labels), matches);
    });
  }

  test('everything() is empty and matches any labels', () => {
    const sel = LabelSelector.everything();
    assert.ok(sel.isEmpty());
    assert.equal(sel.toString(), '');
    assert.ok(sel.matches({ x: 'y' }));
    assert.ok(sel.matches(undefined));
  });
});

describe('LabelSelector.fromLabelSelectorObject', () => {
  test('turns matchLabels into = requirements and matchExpressions into their operators', () => {
    const sel = LabelSelector.fromLabelSelectorObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['fe', 'be'] },
        { key: 'env', operator: 'NotIn', values: ['dev'] },
        { key: 'ready', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist', values: [] },
      ],
    });
    assert.equal(sel.toString(), 'app=web,env notin (dev),!legacy,ready,tier in (be,fe)');
    assert.ok(sel.matches({ app: 'web', tier: 'fe', ready: 'true' }));
    assert.ok(!sel.matches({ app: 'web', tier: 'fe', ready: 'true', legacy: 'x' }));
    assert.ok(!sel.matches({ app: 'web', tier: 'fe', ready: 'true', env: 'dev' }));
    assert.deepEqual(LabelSelector.parse(sel.toString()).requirements, sel.requirements);
  });

  test('an empty object selects everything', () => {
    assert.ok(LabelSelector.fromLabelSelectorObject({}).isEmpty());
  });

  const bad: { name: string; sel: Parameters<typeof LabelSelector.fromLabelSelectorObject>[0]; token: string }[] = [
    { name: 'In without values', sel: { matchExpressions: [{ key: 'a', operator: 'In' }] }, token: 'a' },
    { name: 'Exists with values', sel: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, token: 'a' },
    { name: 'an unknown operator', sel: { matchExpressions: [{ key: 'a', operator: 'Gt' as 'In', values: ['1'] }] }, token: 'Gt' },
    { name: 'an invalid key', sel: { matchLabels: { '-a': 'x' } }, token: '-a' },
    { name: 'an invalid value', sel: { matchLabels: { a: 'x y' } }, token: 'x y' },
  ];
  for (const { name, sel, token } of bad) {
    test(`rejects ${name} with a SelectorError naming ${JSON.stringify(token)}`, () => {
      assert.throws(() => LabelSelector.fromLabelSelectorObject(sel), (err: SelectorError) => isSelectorError(err) && err.token === token);
    });
  }

  test('fromLabels builds an equality selector', () => {
    const sel = LabelSelector.fromLabels({ b: '2', a: '1' });
    assert.equal(sel.toString(), 'a=1,b=2');
    assert.ok(sel.matches({ a: '1', b: '2', c: '3' }));
  });
});
