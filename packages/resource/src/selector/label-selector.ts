/**
 * Label selectors: parse, format and match, with the grammar and semantics of Kubernetes
 * (`k8s.io/apimachinery/pkg/labels`). One implementation serves the client (building query
 * strings) and the API server (filtering lists and watches), so both agree on every edge case.
 */
import { SelectorError } from '../errors.js';
import { labelValueProblem, qualifiedNameProblem } from './label-validation.js';

/** The operator of one label requirement. `Equals` is `=`, `DoubleEquals` is `==`. */
export type LabelOperator = 'Equals' | 'DoubleEquals' | 'NotEquals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/**
 * One requirement of a label selector. `values` has exactly one entry for the equality
 * operators, at least one (sorted, without duplicates) for `In`/`NotIn`, none for `Exists`/`DoesNotExist`.
 */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** The `metav1.LabelSelector` object used in specs (`matchLabels` AND `matchExpressions`). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

type Labels = Readonly<Record<string, string>> | undefined;
type LabelTest = (labels: Labels) => boolean;

/**
 * A parsed label selector: requirements joined by AND. Immutable.
 *
 * Semantics (as in Kubernetes): `!=` and `notin` also match objects that do not have the label;
 * `=`, `==` and `in` require it; the empty selector matches everything.
 */
export class LabelSelector {
  /** The requirements, sorted by key (the canonical Kubernetes order). */
  readonly requirements: readonly LabelRequirement[];
  readonly #tests: readonly LabelTest[];
  #text: string | undefined;

  static readonly #everything = new LabelSelector([]);

  private constructor(requirements: LabelRequirement[]) {
    // Stable sort: requirements on the same key keep their written order.
    requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.requirements = Object.freeze(requirements.map((r) => Object.freeze({ ...r, values: Object.freeze([...r.values]) })));
    this.#tests = this.requirements.map(compileRequirement);
  }

  /**
   * Parses a selector such as `app=web,tier in (a,b),!legacy`. The empty string (or only
   * whitespace) selects everything.
   * @throws SelectorError naming the offending token.
   */
  static parse(text: string): LabelSelector {
    return new LabelSelector(new Parser(text).parse());
  }

  /** The selector that matches every object. */
  static everything(): LabelSelector {
    return LabelSelector.#everything;
  }

  /** A selector requiring every given label to have the given value (`a=1,b=2`). */
  static fromLabels(labels: Readonly<Record<string, string>>): LabelSelector {
    const text = JSON.stringify(labels);
    return new LabelSelector(Object.entries(labels).map(([key, value]) => checked(text, { key, operator: 'Equals', values: [value] })));
  }

  /**
   * Converts the `metav1.LabelSelector` object of a spec. `matchLabels` entries become `=`
   * requirements. An object with neither field selects everything.
   * @throws SelectorError for an invalid key, value or operator, or a values list that does not fit the operator.
   */
  static fromLabelSelectorObject(sel: LabelSelectorObject): LabelSelector {
    const text = JSON.stringify(sel);
    const requirements: LabelRequirement[] = [];
    for (const [key, value] of Object.entries(sel.matchLabels ?? {})) {
      requirements.push(checked(text, { key, operator: 'Equals', values: [value] }));
    }
    for (const expr of sel.matchExpressions ?? []) {
      const values = expr.values ?? [];
      switch (expr.operator) {
        case 'In':
        case 'NotIn':
          if (values.length === 0) {
            throw new SelectorError(`invalid label selector ${text}: operator ${expr.operator} on "${expr.key}" needs at least one value`, text, expr.key);
          }
          requirements.push(checked(text, { key: expr.key, operator: expr.operator, values: uniqueSorted(values) }));
          break;
        case 'Exists':
        case 'DoesNotExist':
          if (values.length > 0) {
            throw new SelectorError(`invalid label selector ${text}: operator ${expr.operator} on "${expr.key}" takes no values`, text, expr.key);
          }
          requirements.push(checked(text, { key: expr.key, operator: expr.operator, values: [] }));
          break;
        default: {
          const operator = String((expr as { operator: unknown }).operator);
          throw new SelectorError(`invalid label selector ${text}: unknown operator "${operator}" (expected In, NotIn, Exists or DoesNotExist)`, text, operator);
        }
      }
    }
    return new LabelSelector(requirements);
  }

  /** True when the selector has no requirements (matches everything). */
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /** True when the labels satisfy every requirement. `undefined` labels behave as no labels. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    for (const test of this.#tests) if (!test(labels)) return false;
    return true;
  }

  /** The canonical Kubernetes text: requirements sorted by key, set values sorted. `parse(toString())` round-trips. */
  toString(): string {
    this.#text ??= this.requirements.map(formatRequirement).join(',');
    return this.#text;
  }
}

/** Parses a label selector; the same as {@link LabelSelector.parse}. */
export function parseLabelSelector(text: string): LabelSelector {
  return LabelSelector.parse(text);
}

function uniqueSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

function checked(text: string, req: LabelRequirement): LabelRequirement {
  const keyProblem = qualifiedNameProblem(req.key);
  if (keyProblem) throw new SelectorError(`invalid label selector ${text}: invalid label key "${req.key}": ${keyProblem}`, text, req.key);
  for (const value of req.values) {
    const valueProblem = labelValueProblem(value);
    if (valueProblem) throw new SelectorError(`invalid label selector ${text}: invalid label value "${value}": ${valueProblem}`, text, value);
  }
  return req;
}

function labelOf(labels: Labels, key: string): string | undefined {
  // hasOwn: `constructor` is a valid label key and must not read Object.prototype.
  return labels !== undefined && Object.hasOwn(labels, key) ? labels[key] : undefined;
}

function compileRequirement(req: LabelRequirement): LabelTest {
  const { key, values } = req;
  switch (req.operator) {
    case 'Exists':
      return (labels) => labelOf(labels, key) !== undefined;
    case 'DoesNotExist':
      return (labels) => labelOf(labels, key) === undefined;
    case 'Equals':
    case 'DoubleEquals':
    case 'NotEquals': {
      const expected = values[0] ?? '';
      const negate = req.operator === 'NotEquals';
      return (labels) => {
        const actual = labelOf(labels, key);
        return negate ? actual !== expected : actual === expected;
      };
    }
    case 'In':
    case 'NotIn': {
      const set = new Set(values);
      const negate = req.operator === 'NotIn';
      return (labels) => {
        const actual = labelOf(labels, key);
        const found = actual !== undefined && set.has(actual);
        return negate ? !found : found;
      };
    }
  }
}

function formatRequirement(req: LabelRequirement): string {
  switch (req.operator) {
    case 'Exists':
      return req.key;
    case 'DoesNotExist':
      return `!${req.key}`;
    case 'Equals':
      return `${req.key}=${req.values[0] ?? ''}`;
    case 'DoubleEquals':
      return `${req.key}==${req.values[0] ?? ''}`;
    case 'NotEquals':
      return `${req.key}!=${req.values[0] ?? ''}`;
    case 'In':
      return `${req.key} in (${req.values.join(',')})`;
    case 'NotIn':
      return `${req.key} notin (${req.values.join(',')})`;
  }
}

// --- lexer and parser ---

type TokenKind = 'identifier' | '=' | '==' | '!=' | '!' | '(' | ')' | ',' | '<' | '>' | 'end';

interface Token {
  readonly kind: TokenKind;
  readonly text: string;
}

const endToken: Token = { kind: 'end', text: '' };

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSpecial(ch: string): boolean {
  return ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '<' || ch === '>';
}

/** Splits selector text into tokens; identifiers are maximal runs of non-special, non-space characters. */
function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (isWhitespace(ch)) {
      i++;
    } else if (isSpecial(ch)) {
      const next = text[i + 1];
      if ((ch === '=' || ch === '!') && next === '=') {
        tokens.push({ kind: ch === '=' ? '==' : '!=', text: ch + next });
        i += 2;
      } else {
        tokens.push({ kind: ch as TokenKind, text: ch });
        i++;
      }
    } else {
      const start = i;
      while (i < text.length && !isWhitespace(text[i] as string) && !isSpecial(text[i] as string)) i++;
      tokens.push({ kind: 'identifier', text: text.slice(start, i) });
    }
  }
  tokens.push(endToken);
  return tokens;
}

class Parser {
  readonly #text: string;
  readonly #tokens: Token[];
  #pos = 0;

  constructor(text: string) {
    this.#text = text;
    this.#tokens = lex(text);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    if (this.#peek().kind === 'end') return requirements;
    for (;;) {
      requirements.push(this.#requirement());
      const tok = this.#peek();
      if (tok.kind === 'end') return requirements;
      if (tok.kind !== ',') this.#fail(tok, `expected ',' or end of selector after "${this.#previous().text}", found "${tok.text}"`);
      this.#pos++;
      if (this.#peek().kind === 'end') this.#fail(tok, "expected a requirement after ','");
    }
  }

  #peek(): Token {
    return this.#tokens[this.#pos] ?? endToken;
  }

  #next(): Token {
    const tok = this.#peek();
    if (tok.kind !== 'end') this.#pos++;
    return tok;
  }

  #previous(): Token {
    return this.#tokens[this.#pos - 1] ?? endToken;
  }

  /** Throws, naming `tok` (or, at the end of the text, the last token read). */
  #fail(tok: Token, detail: string): never {
    const token = tok.kind === 'end' ? this.#previous().text : tok.text;
    throw new SelectorError(`invalid label selector ${JSON.stringify(this.#text)}: ${detail}`, this.#text, token);
  }

  #expected(what: string, tok: Token): never {
    if (tok.kind === 'end') this.#fail(tok, `expected ${what} after "${this.#previous().text}"`);
    this.#fail(tok, `expected ${what}, found "${tok.text}"`);
  }

  #requirement(): LabelRequirement {
    let tok = this.#next();
    const negated = tok.kind === '!';
    if (negated) tok = this.#next();
    if (tok.kind !== 'identifier') this.#expected('a label key', tok);
    const key = tok.text;
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem) this.#fail(tok, `invalid label key "${key}": ${keyProblem}`);
    if (negated) return { key, operator: 'DoesNotExist', values: [] };

    const after = this.#peek();
    if (after.kind === 'end' || after.kind === ',') return { key, operator: 'Exists', values: [] };
    const op = this.#next();
    switch (op.kind) {
      case '=':
        return { key, operator: 'Equals', values: [this.#exactValue()] };
      case '==':
        return { key, operator: 'DoubleEquals', values: [this.#exactValue()] };
      case '!=':
        return { key, operator: 'NotEquals', values: [this.#exactValue()] };
      case '<':
      case '>':
        return this.#fail(op, `operator "${op.text}" is not supported in label selectors`);
      case 'identifier':
        if (op.text === 'in') return { key, operator: 'In', values: this.#setValues() };
        if (op.text === 'notin') return { key, operator: 'NotIn', values: this.#setValues() };
        break;
      default:
        break;
    }
    this.#fail(op, `expected an operator (=, ==, !=, in, notin) or ',' after "${key}", found "${op.text}"`);
  }

  /** The value after `=`, `==` or `!=`; empty when the requirement ends right after the operator. */
  #exactValue(): string {
    const tok = this.#peek();
    if (tok.kind === 'end' || tok.kind === ',') return '';
    if (tok.kind !== 'identifier') this.#expected('a label value', tok);
    this.#pos++;
    return this.#value(tok);
  }

  /** `( v1, v2, ... )`; as in Kubernetes an empty item (`()`, `(a,)`) is the empty value. */
  #setValues(): string[] {
    const open = this.#next();
    if (open.kind !== '(') this.#expected("'('", open);
    const values: string[] = [];
    for (;;) {
      const tok = this.#peek();
      if (tok.kind === 'identifier') {
        this.#pos++;
        values.push(this.#value(tok));
      } else {
        values.push('');
      }
      const sep = this.#next();
      if (sep.kind === ')') return uniqueSorted(values);
      if (sep.kind === 'end') this.#expected("')'", sep);
      if (sep.kind !== ',') this.#expected("',' or ')'", sep);
    }
  }

  #value(tok: Token): string {
    const problem = labelValueProblem(tok.text);
    if (problem) this.#fail(tok, `invalid label value "${tok.text}": ${problem}`);
    return tok.text;
  }
}
