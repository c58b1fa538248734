/**
 * Checks a value against a compiled {@link SchemaNode}, reporting every failure (as Ajv's
 * `allErrors` did, in the same order: the type and untyped keywords first, then the keywords of
 * the value's type group). Own properties only: a property named `constructor` or `valueOf` is
 * never found on `Object.prototype`. Time is linear in the value times the schema branches that
 * apply to it; pattern matches are priced first (`pattern-budget.ts`).
 */
import { canonicalJson } from './canonical-json.js';
import { jsonEqual } from '../json-value.js';
import { maxPatternMatchCost } from './pattern-budget.js';
import type { CompiledPattern } from './linear-regexp.js';
import type { JsonType, KeywordGroup, SchemaNode } from './schema-node.js';
import { isRecord } from './structural-schema-converter.js';

/** One failed keyword. */
export interface SchemaError {
  /** The schema keyword that failed (`type`, `required`, `pattern`, `kubeListSet`...). */
  readonly keyword: string;
  /** The field path of the value, e.g. `spec.items[0].name` (empty for the object itself). */
  readonly field: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** The value that failed. */
  readonly data: unknown;
}

/** Thrown when the next pattern match would exceed the object's matching budget. */
export class PatternBudgetExceeded extends Error {
  /** The field path of the value. */
  readonly field: string;
  /** The pattern's source and program size. */
  readonly pattern: CompiledPattern;
  readonly value: string;
  /** What was left of the object's budget before this match. */
  readonly remaining: number;

  constructor(at: { field: string; pattern: CompiledPattern; value: string; remaining: number }) {
    super(`${at.field}: matching the pattern ${at.pattern.source} exceeds the budget`);
    this.field = at.field;
    this.pattern = at.pattern;
    this.value = at.value;
    this.remaining = at.remaining;
  }
}

/** The state of one object's check: where it is, what failed, what the patterns have cost. */
class CheckRun {
  readonly path: (string | number)[] = [];
  errors: SchemaError[] = [];
  patternCost = 0;

  field(): string {
    let out = '';
    for (const segment of this.path) out += typeof segment === 'number' ? `[${segment}]` : out === '' ? segment : `.${segment}`;
    return out;
  }

  fail(keyword: string, data: unknown, params: Record<string, unknown> = {}): void {
    this.errors.push({ keyword, data, params, field: this.field() });
  }

  /** Runs `check` with errors collected apart; answers whether it passed. */
  passes(check: () => void): boolean {
    const outer = this.errors;
    this.errors = [];
    try {
      check();
      return this.errors.length === 0;
    } finally {
      this.errors = outer;
    }
  }
}

/**
 * Every failure of `value` against `node`.
 * @throws {@link PatternBudgetExceeded} when the patterns would cost more than the budget.
 */
export function checkValue(node: SchemaNode, value: unknown): SchemaError[] {
  const run = new CheckRun();
  check(run, node, value);
  return run.errors;
}

function hasType(type: JsonType, data: unknown): boolean {
  switch (type) {
    case 'null':
      return data === null;
    case 'boolean':
      return typeof data === 'boolean';
    case 'string':
      return typeof data === 'string';
    case 'number':
      return typeof data === 'number' && Number.isFinite(data);
    case 'integer':
      return typeof data === 'number' && Number.isInteger(data);
    case 'array':
      return Array.isArray(data);
    case 'object':
      return isRecord(data);
  }
}

function groupOf(data: unknown): KeywordGroup | undefined {
  if (typeof data === 'string') return 'string';
  if (typeof data === 'number') return Number.isFinite(data) ? 'number' : undefined;
  if (Array.isArray(data)) return 'array';
  return isRecord(data) ? 'object' : undefined;
}

function check(run: CheckRun, node: SchemaNode, data: unknown): void {
  const types = node.types;
  const typeOk = types === undefined || types.some((t) => hasType(t, data));
  if (!typeOk && node.typeReportedBy === undefined) run.fail('type', data, { type: types });
  checkUntyped(run, node, data);
  const group = groupOf(data);
  if (group !== undefined && node.groups.has(group)) {
    if (group === 'number') checkNumber(run, node, data as number);
    else if (group === 'string') checkString(run, node, data as string);
    else if (group === 'array') checkArray(run, node, data as unknown[]);
    else checkObject(run, node, data as Record<string, unknown>);
  } else if (!typeOk && node.typeReportedBy !== undefined) run.fail('type', data, { type: types });
}

function checkUntyped(run: CheckRun, node: SchemaNode, data: unknown): void {
  if (node.enumValues !== undefined && !inEnum(node, data)) run.fail('enum', data, { allowedValues: node.enumValues });
  if (node.not !== undefined && run.passes(() => check(run, node.not!, data))) run.fail('not', data);
  if (node.anyOf !== undefined && !node.anyOf.some((branch) => run.passes(() => check(run, branch, data)))) run.fail('anyOf', data);
  if (node.oneOf !== undefined) {
    let passing = 0;
    for (const branch of node.oneOf) if (run.passes(() => check(run, branch, data))) passing++;
    if (passing !== 1) run.fail('oneOf', data, { passingSchemas: passing });
  }
  if (node.allOf !== undefined) for (const branch of node.allOf) check(run, branch, data);
}

function inEnum(node: SchemaNode, data: unknown): boolean {
  if (data === null || typeof data !== 'object') return node.enumScalars!.has(data);
  return node.enumValues!.some((v) => typeof v === 'object' && v !== null && jsonEqual(v, data));
}

function checkNumber(run: CheckRun, node: SchemaNode, data: number): void {
  if (node.maximum !== undefined && data > node.maximum) run.fail('maximum', data, { limit: node.maximum });
  if (node.minimum !== undefined && data < node.minimum) run.fail('minimum', data, { limit: node.minimum });
  if (node.exclusiveMaximum !== undefined && data >= node.exclusiveMaximum) run.fail('exclusiveMaximum', data, { limit: node.exclusiveMaximum });
  if (node.exclusiveMinimum !== undefined && data <= node.exclusiveMinimum) run.fail('exclusiveMinimum', data, { limit: node.exclusiveMinimum });
  if (node.multipleOf !== undefined && !Number.isInteger(data / node.multipleOf)) run.fail('multipleOf', data, { multipleOf: node.multipleOf });
}

/** Length in code points (as Go counts runes), counted only when the UTF-16 length cannot decide. */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function checkString(run: CheckRun, node: SchemaNode, data: string): void {
  if (node.maxLength !== undefined && data.length > node.maxLength && codePoints(data) > node.maxLength) run.fail('maxLength', data, { limit: node.maxLength });
  if (node.minLength !== undefined && (data.length < node.minLength || codePoints(data) < node.minLength)) run.fail('minLength', data, { limit: node.minLength });
  const pattern = node.pattern;
  if (pattern !== undefined) {
    // Priced before it runs: past the budget the write is refused, not the server frozen.
    const cost = Math.max(data.length, 1) * pattern.programSize;
    const remaining = maxPatternMatchCost - run.patternCost;
    if (cost > remaining) throw new PatternBudgetExceeded({ field: run.field(), pattern, value: data, remaining });
    run.patternCost += cost;
    if (!pattern.test(data)) run.fail('pattern', data, { pattern: pattern.source });
  }
  if (node.format !== undefined && !node.format.check(data)) run.fail('format', data, { format: node.format.name });
}

function checkArray(run: CheckRun, node: SchemaNode, data: unknown[]): void {
  if (node.maxItems !== undefined && data.length > node.maxItems) run.fail('maxItems', data, { limit: node.maxItems });
  if (node.minItems !== undefined && data.length < node.minItems) run.fail('minItems', data, { limit: node.minItems });
  const items = node.items;
  if (items !== undefined) {
    const count = Array.isArray(items) ? Math.min(items.length, data.length) : data.length;
    for (let i = 0; i < count; i++) {
      run.path.push(i);
      check(run, Array.isArray(items) ? (items as SchemaNode[])[i]! : (items as SchemaNode), data[i]);
      run.path.pop();
    }
  }
  if (node.listMapKeys !== undefined) checkListMapKeys(run, node.listMapKeys, data);
  if (node.listSet) checkListSet(run, data);
}

// `x-kubernetes-list-type: map`: no two items may share the values of the map keys.
function checkListMapKeys(run: CheckRun, keys: readonly string[], data: unknown[]): void {
  const seen = new Set<string>();
  data.forEach((item, index) => {
    if (!isRecord(item)) return;
    const key: Record<string, unknown> = {};
    for (const k of keys) key[k] = Object.hasOwn(item, k) ? item[k] : undefined;
    const id = JSON.stringify(keys.map((k) => key[k] ?? null));
    if (seen.has(id)) run.fail('kubeListMapKeys', data, { index, key });
    seen.add(id);
  });
}

// `x-kubernetes-list-type: set`: no two items may be equal. Linear: a map of canonical JSON texts.
// As kube-apiserver, a duplicated value is reported once, at its first repetition (50,000 equal
// items: one error, not 49,999).
function checkListSet(run: CheckRun, data: unknown[]): void {
  const seen = new Map<string, number>();
  data.forEach((item, index) => {
    const id = canonicalJson(item);
    const times = seen.get(id) ?? 0;
    if (times === 1) run.fail('kubeListSet', data, { index });
    seen.set(id, times + 1);
  });
}

function checkObject(run: CheckRun, node: SchemaNode, data: Record<string, unknown>): void {
  const keys = node.maxProperties !== undefined || node.minProperties !== undefined || node.additionalProperties !== undefined ? Object.keys(data) : undefined;
  if (node.maxProperties !== undefined && keys!.length > node.maxProperties) run.fail('maxProperties', data, { limit: node.maxProperties });
  if (node.minProperties !== undefined && keys!.length < node.minProperties) run.fail('minProperties', data, { limit: node.minProperties });
  if (node.required !== undefined) {
    for (const name of node.required) if (!Object.hasOwn(data, name) || data[name] === undefined) run.fail('required', data, { missingProperty: name });
  }
  const additional = node.additionalProperties;
  if (additional !== undefined && additional !== true) {
    for (const key of keys!) {
      if (node.properties?.has(key)) continue;
      if (additional === false) run.fail('additionalProperties', data, { additionalProperty: key });
      else {
        run.path.push(key);
        check(run, additional, data[key]);
        run.path.pop();
      }
    }
  }
  if (node.properties !== undefined) {
    for (const [key, child] of node.properties) {
      if (!Object.hasOwn(data, key) || data[key] === undefined) continue;
      run.path.push(key);
      check(run, child, data[key]);
      run.path.pop();
    }
  }
  if (node.embeddedResource) {
    for (const field of ['apiVersion', 'kind']) {
      const v = Object.hasOwn(data, field) ? data[field] : undefined;
      if (typeof v !== 'string' || v === '') run.fail('kubeEmbeddedResource', data, { missingProperty: field });
    }
  }
}
