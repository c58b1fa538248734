/**
 * Shard selectors of KEP-5866 (server-side sharded list and watch, Kubernetes 1.36, alpha behind
 * `ShardedListAndWatch`): the `shardSelector` query parameter, e.g.
 * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`, several ranges
 * joined by `||`. An object is selected when the 64-bit FNV-1a hash of the field (see
 * `shard-hash.ts`) falls in one of the ranges, start inclusive, end exclusive.
 *
 * kube-apiserver parses the text as CEL but never evaluates it: only `shardRange(field, 'start',
 * 'end')` calls and `||` are allowed, every range names the same field (`object.metadata.uid` or
 * `object.metadata.namespace`), bounds are `0x` and exactly 16 lowercase hex digits, or
 * `0x10000000000000000` (2^64) as an end, and start < end. This parser accepts the same subset of
 * CEL (whitespace, either quote, parentheses) with upstream's messages. One implementation serves
 * the client (building the parameter, filtering when a server ignores it) and the API server.
 */
import { SelectorError } from '../errors.js';
import { formatShardBound, shardHashHalves, shardHashSpaceEnd } from './shard-hash.js';

/** The object fields a shard range can hash. */
export type ShardField = 'uid' | 'namespace';

/** One range of the hash space, `start <= hash < end`, over one field. */
export interface ShardRange {
  readonly field: ShardField;
  /** Inclusive, in [0, 2^64). */
  readonly start: bigint;
  /** Exclusive, in (start, 2^64]. */
  readonly end: bigint;
}

/** What a shard selector reads of an object. */
export interface ShardedObject {
  readonly metadata: { readonly uid?: string | undefined; readonly namespace?: string | undefined };
}

const fieldPaths: Record<ShardField, string> = { uid: 'object.metadata.uid', namespace: 'object.metadata.namespace' };

/** Parentheses nested deeper than this are refused (the parser recurses on them). */
const maxNesting = 32;

function selectorError(text: string, token: string, detail: string): SelectorError {
  return new SelectorError(`invalid shard selector: ${detail}`, text, token);
}

/** A range with its bounds split into 32-bit halves, for matching without BigInt. */
interface CompiledRange {
  readonly startHigh: number;
  readonly startLow: number;
  /** -1 for an end of 2^64 (everything from start up). */
  readonly endHigh: number;
  readonly endLow: number;
}

function compile(range: ShardRange): CompiledRange {
  const top = range.end === shardHashSpaceEnd;
  return {
    startHigh: Number(range.start >> 32n),
    startLow: Number(range.start & 0xffffffffn),
    endHigh: top ? -1 : Number(range.end >> 32n),
    endLow: top ? 0 : Number(range.end & 0xffffffffn),
  };
}

/**
 * A shard range of the hash space over `field`, `start <= hash < end`.
 * @throws RangeError when the bounds are outside [0, 2^64] or `start >= end`.
 */
export function shardRange(field: ShardField, start: bigint, end: bigint): ShardRange {
  if (field !== 'uid' && field !== 'namespace') throw new RangeError(`shard field must be 'uid' or 'namespace', got ${JSON.stringify(field)}`);
  if (start < 0n || start >= shardHashSpaceEnd) throw new RangeError(`shard range start must be in [0, 2^64), got ${start}`);
  if (end <= start || end > shardHashSpaceEnd) throw new RangeError(`shard range end must be in (start, 2^64], got ${end} with start ${start}`);
  return Object.freeze({ field, start, end });
}

/**
 * The i-th of `count` equal ranges of the hash space: [floor(i * 2^64 / count), floor((i + 1) * 2^64 / count)),
 * the last one ending at 2^64, so that the `count` ranges cover the space exactly once.
 */
export function equalShardRange(index: number, count: number, field: ShardField = 'uid'): ShardRange {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`shard count must be an integer >= 1, got ${count}`);
  if (!Number.isInteger(index) || index < 0 || index >= count) throw new RangeError(`shard index must be an integer in [0, ${count}), got ${index}`);
  const bound = (i: number): bigint => (BigInt(i) * shardHashSpaceEnd) / BigInt(count);
  return shardRange(field, bound(index), bound(index + 1));
}

/** The hash space cut into `count` equal ranges over `field` (see {@link equalShardRange}). */
export function splitShardSpace(count: number, field: ShardField = 'uid'): ShardRange[] {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`shard count must be an integer >= 1, got ${count}`);
  return Array.from({ length: count }, (_, i) => equalShardRange(i, count, field));
}

/** A shard selector of the given ranges (all on one field). @throws RangeError for no ranges or ranges on different fields. */
export function shardRanges(ranges: readonly ShardRange[]): ShardSelector {
  return ShardSelector.of(ranges);
}

/**
 * A parsed shard selector: ranges on one field, joined by OR. Immutable. `toString()` is the
 * canonical wire text (what kube-apiserver's `Selector.String()` writes).
 */
export class ShardSelector {
  readonly field: ShardField;
  /** The ranges, in the order given. */
  readonly ranges: readonly ShardRange[];
  readonly #compiled: readonly CompiledRange[];
  #text: string | undefined;

  private constructor(ranges: readonly ShardRange[]) {
    this.field = (ranges[0] as ShardRange).field;
    this.ranges = Object.freeze([...ranges]);
    this.#compiled = this.ranges.map(compile);
  }

  /** A selector of `ranges`. @throws RangeError for no ranges or ranges on different fields. */
  static of(ranges: readonly ShardRange[]): ShardSelector {
    const first = ranges[0];
    if (first === undefined) throw new RangeError('a shard selector needs at least one range');
    for (const range of ranges) {
      shardRange(range.field, range.start, range.end);
      if (range.field !== first.field) throw new RangeError(`all shard ranges must use the same field, got ${JSON.stringify(fieldPaths[first.field])} and ${JSON.stringify(fieldPaths[range.field])}`);
    }
    return new ShardSelector(ranges);
  }

  /**
   * Parses the `shardSelector` text. Unlike label selectors, empty text is an error (omit the
   * parameter instead), as kube-apiserver says.
   * @throws SelectorError with kube-apiserver's message, prefixed `invalid shard selector: `.
   */
  static parse(text: string): ShardSelector {
    const trimmed = text.trim();
    if (trimmed === '') throw selectorError(text, '', 'empty shard selector is not allowed; omit the parameter for unfiltered lists');
    const ranges = new ShardSelectorParser(text).parse();
    const first = ranges[0] as ShardRange;
    for (const range of ranges) {
      if (range.field !== first.field) {
        throw selectorError(text, fieldPaths[range.field], `all shard ranges must use the same field, got ${JSON.stringify(fieldPaths[first.field])} and ${JSON.stringify(fieldPaths[range.field])}`);
      }
    }
    return new ShardSelector(ranges);
  }

  /** True when the hash of the object's field falls in one of the ranges (a missing field hashes as ''). */
  matches(object: ShardedObject): boolean {
    const value = (this.field === 'uid' ? object.metadata.uid : object.metadata.namespace) ?? '';
    return this.matchesValue(value);
  }

  /** True when the hash of `value` falls in one of the ranges. */
  matchesValue(value: string): boolean {
    const [high, low] = shardHashHalves(value);
    for (const r of this.#compiled) {
      if (high < r.startHigh || (high === r.startHigh && low < r.startLow)) continue;
      if (r.endHigh === -1 || high < r.endHigh || (high === r.endHigh && low < r.endLow)) return true;
    }
    return false;
  }

  /** True when both select the same ranges in the same order (a server's echo of this selector). */
  equals(other: ShardSelector): boolean {
    return this.toString() === other.toString();
  }

  /** The wire text: `shardRange(object.metadata.uid, '0x…', '0x…') || …`. */
  toString(): string {
    this.#text ??= this.ranges.map((r) => `shardRange(${fieldPaths[r.field]}, '${formatShardBound(r.start)}', '${formatShardBound(r.end)}')`).join(' || ');
    return this.#text;
  }
}

type Token =
  | { readonly kind: 'ident'; readonly text: string; readonly at: number }
  | { readonly kind: 'string'; readonly text: string; readonly at: number }
  | { readonly kind: 'number'; readonly text: string; readonly at: number }
  | { readonly kind: 'punct'; readonly text: string; readonly at: number }
  | { readonly kind: 'end'; readonly text: ''; readonly at: number };

/** CEL's binary operators, by their function names in CEL's AST (what upstream's "unsupported function" names). */
const binaryOperators: Record<string, string> = {
  '&&': '_&&_',
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  in: '@in',
};

/** Recursive descent over the CEL subset: `expr := term ('||' term)*`, `term := '(' expr ')' | call`. */
class ShardSelectorParser {
  readonly #text: string;
  readonly #tokens: Token[];
  #i = 0;

  constructor(text: string) {
    this.#text = text;
    this.#tokens = this.#tokenize();
  }

  parse(): ShardRange[] {
    const ranges = this.#expr(0);
    const next = this.#peek();
    if (next.kind !== 'end') this.#unexpected(next);
    return ranges;
  }

  #fail(token: string, detail: string): never {
    throw selectorError(this.#text, token, detail);
  }

  #syntax(token: Token, what: string): never {
    const shown = token.kind === 'end' ? 'end of input' : `'${token.text}'`;
    this.#fail(token.text, `CEL parse error: Syntax error: ${what}, got ${shown} at position ${token.at}`);
  }

  #unexpected(token: Token): never {
    const op = binaryOperators[token.text];
    if (op !== undefined) this.#fail(token.text, `unsupported function "${op}"; only shardRange() and || are allowed`);
    this.#syntax(token, 'unexpected input');
  }

  #peek(): Token {
    return this.#tokens[this.#i] as Token;
  }

  #take(): Token {
    return this.#tokens[this.#i++] as Token;
  }

  #expect(text: string, what: string): void {
    const token = this.#take();
    if (token.text !== text || token.kind === 'string') this.#syntax(token, what);
  }

  #expr(depth: number): ShardRange[] {
    const ranges = this.#term(depth);
    while (this.#peek().text === '||' && this.#peek().kind === 'punct') {
      this.#take();
      ranges.push(...this.#term(depth));
    }
    return ranges;
  }

  #term(depth: number): ShardRange[] {
    const token = this.#peek();
    if (token.kind === 'punct' && token.text === '(') {
      if (depth >= maxNesting) this.#fail('(', `parentheses nested deeper than ${maxNesting}`);
      this.#take();
      const inner = this.#expr(depth + 1);
      this.#expect(')', "expected ')'");
      return inner;
    }
    if (token.kind === 'punct' && token.text === '!') this.#fail('!', 'unsupported function "!_"; only shardRange() and || are allowed');
    const path = this.#path();
    if (this.#peek().text !== '(' || this.#peek().kind !== 'punct') {
      if (path === undefined) this.#unexpected(this.#peek());
      this.#fail(path, `unexpected expression ${path}; expected shardRange() call or || operator`);
    }
    if (path !== 'shardRange') this.#fail(path ?? '', `unsupported function "${path}"; only shardRange() and || are allowed`);
    this.#take();
    const args = this.#args();
    if (args.length !== 3) this.#fail('shardRange', `shardRange() requires exactly 3 arguments, got ${args.length}`);
    const [fieldArg, startArg, endArg] = args as [Token[], Token[], Token[]];
    const field = this.#field(fieldArg);
    const start = this.#bound(startArg, 'hexStart');
    const end = this.#bound(endArg, 'hexEnd');
    if (start.value >= end.value) this.#fail(start.text, `shard range start ${start.text} must be less than end ${end.text}`);
    if (start.value === shardHashSpaceEnd) this.#fail(start.text, `hexStart must be below 2^64, got ${JSON.stringify(start.text)}`);
    return [{ field, start: start.value, end: end.value }];
  }

  /** An identifier path such as `object.metadata.uid`; undefined when the next token is not an identifier. */
  #path(): string | undefined {
    if (this.#peek().kind !== 'ident') return undefined;
    let path = this.#take().text;
    while (this.#peek().kind === 'punct' && this.#peek().text === '.') {
      this.#take();
      const part = this.#take();
      if (part.kind !== 'ident') this.#syntax(part, 'expected a field name after .');
      path += `.${part.text}`;
    }
    return path;
  }

  /** The argument token lists of a call, up to its closing parenthesis (nested calls kept whole, to be refused by kind). */
  #args(): Token[][] {
    const args: Token[][] = [];
    if (this.#peek().kind === 'punct' && this.#peek().text === ')') {
      this.#take();
      return args;
    }
    let current: Token[] = [];
    let depth = 0;
    for (;;) {
      const token = this.#take();
      if (token.kind === 'end') this.#syntax(token, "expected ')'");
      if (token.kind === 'punct' && token.text === '(') {
        if (++depth > maxNesting) this.#fail('(', `parentheses nested deeper than ${maxNesting}`);
      } else if (token.kind === 'punct' && token.text === ')') {
        if (depth === 0) {
          args.push(current);
          return args;
        }
        depth--;
      } else if (token.kind === 'punct' && token.text === ',' && depth === 0) {
        args.push(current);
        current = [];
        continue;
      }
      current.push(token);
    }
  }

  #field(arg: Token[]): ShardField {
    const text = arg.map((t) => t.text).join('');
    const isPath = arg.length > 0 && arg.every((t, i) => (i % 2 === 0 ? t.kind === 'ident' : t.kind === 'punct' && t.text === '.')) && arg.length % 2 === 1;
    if (!isPath) this.#fail(text, `shardRange() first argument: expected field path (e.g. object.metadata.uid), got ${describe(arg)}`);
    if (text === fieldPaths.uid) return 'uid';
    if (text === fieldPaths.namespace) return 'namespace';
    this.#fail(text, `unsupported field path ${JSON.stringify(text)}; supported: object.metadata.uid, object.metadata.namespace`);
  }

  #bound(arg: Token[], name: 'hexStart' | 'hexEnd'): { value: bigint; text: string } {
    const only = arg.length === 1 ? (arg[0] as Token) : undefined;
    if (only?.kind === 'number') this.#fail(only.text, `${name} must be a string literal, got int64`);
    if (only?.kind !== 'string') this.#fail(arg.map((t) => t.text).join(''), `${name} must be a string literal (e.g. '0xff'), got ${describe(arg)}`);
    const s = only.text;
    if (!s.startsWith('0x')) this.#fail(s, `${name} must have '0x' prefix, got ${JSON.stringify(s)}`);
    const hex = s.slice(2);
    if (hex === '') this.#fail(s, `${name}: hex value is required after '0x'`);
    if (hex.length > 17) this.#fail(s, `${name}: hex value too long (${hex.length} chars, max 17): ${JSON.stringify(hex)}`);
    const bad = /[^0-9a-f]/.exec(hex);
    if (bad) this.#fail(s, `${name}: invalid hex character ${JSON.stringify(bad[0])} in ${JSON.stringify(s)}`);
    if (hex.length === 17) {
      if (s !== '0x10000000000000000') this.#fail(s, `${name}: 17-digit hex value must be '0x10000000000000000' (2^64), got ${JSON.stringify(s)}`);
    } else if (hex.length !== 16) {
      this.#fail(s, `${name} must be a 0x-prefixed 16-digit hex value, got ${JSON.stringify(s)} (did you mean ${JSON.stringify(`0x${hex.padStart(16, '0')}`)}?)`);
    }
    return { value: BigInt(s), text: s };
  }

  #tokenize(): Token[] {
    const text = this.#text;
    const tokens: Token[] = [];
    let i = 0;
    while (i < text.length) {
      const c = text[i] as string;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
        i++;
        continue;
      }
      const at = i;
      if (/[A-Za-z_]/.test(c)) {
        while (i < text.length && /[A-Za-z0-9_]/.test(text[i] as string)) i++;
        tokens.push({ kind: 'ident', text: text.slice(at, i), at });
      } else if (/[0-9]/.test(c)) {
        while (i < text.length && /[0-9A-Za-z_.]/.test(text[i] as string)) i++;
        tokens.push({ kind: 'number', text: text.slice(at, i), at });
      } else if (c === "'" || c === '"') {
        const close = text.indexOf(c, i + 1);
        const newline = text.slice(i + 1, close < 0 ? text.length : close).search(/[\n\r]/);
        if (close < 0 || newline >= 0) this.#fail(text.slice(at, at + 20), `CEL parse error: Syntax error: unterminated string literal at position ${at}`);
        const body = text.slice(i + 1, close);
        // Escapes would change the text; hex bounds never need one.
        if (body.includes('\\')) this.#fail(body, `CEL parse error: escape sequences are not supported in shard bounds, got ${JSON.stringify(body)}`);
        tokens.push({ kind: 'string', text: body, at });
        i = close + 1;
      } else {
        const two = text.slice(i, i + 2);
        const op = ['||', '&&', '==', '!=', '<=', '>='].includes(two) ? two : '(),.!<>+-*/%?:[]{}'.includes(c) ? c : undefined;
        if (op === undefined) this.#fail(c, `CEL parse error: Syntax error: token recognition error at: '${c}' (position ${at})`);
        tokens.push({ kind: 'punct', text: op, at });
        i += op.length;
      }
    }
    tokens.push({ kind: 'end', text: '', at: text.length });
    return tokens;
  }
}

/** What an argument is, for messages: a string, a number, a call, an expression. */
function describe(arg: readonly Token[]): string {
  if (arg.length === 0) return 'nothing';
  if (arg.length === 1) {
    const t = arg[0] as Token;
    return t.kind === 'string' ? `a string literal '${t.text}'` : t.kind === 'number' ? `the number ${t.text}` : `'${t.text}'`;
  }
  if (arg.some((t) => t.kind === 'punct' && t.text === '(')) return `a function call ${arg.map((t) => t.text).join('')}`;
  return `the expression ${arg.map((t) => (t.kind === 'string' ? `'${t.text}'` : t.text)).join('')}`;
}
