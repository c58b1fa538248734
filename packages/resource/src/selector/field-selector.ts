/**
 * Field selectors: parse, format and match, with the grammar of Kubernetes
 * (`k8s.io/apimachinery/pkg/fields`): `field=value` terms joined by commas, values escaped with
 * `\` (`\,`, `\=`, `\\`). Shared by the client and the API server.
 */
import { SelectorError } from '../errors.js';
import type { KubeObject } from '../object.js';

/** One term of a field selector. `=` and `==` mean the same; the operator is kept as written. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '==' | '!=';
  readonly value: string;
}

/** Options of {@link FieldSelector.parse}. */
export interface FieldSelectorParseOptions {
  /**
   * The fields a selector may name, or `'any'` to accept every field (a client passing a selector
   * through to a server that knows the kind's fields). Default: `['metadata.name', 'metadata.namespace']`,
   * the fields every kind supports.
   */
  readonly allowedFields?: readonly string[] | 'any';
}

/** The fields every kind supports in a field selector. */
export const defaultSelectableFields: readonly string[] = Object.freeze(['metadata.name', 'metadata.namespace']);

interface CompiledField {
  readonly requirement: FieldRequirement;
  readonly path: readonly string[];
}

/**
 * A parsed field selector: terms joined by AND. Immutable.
 *
 * Semantics (as in Kubernetes): a field the object does not have reads as the empty string, so
 * `metadata.namespace=` selects cluster-scoped objects and `field!=x` selects objects without the field.
 */
export class FieldSelector {
  /** The requirements, in canonical (sorted) order. */
  readonly requirements: readonly FieldRequirement[];
  readonly #compiled: readonly CompiledField[];
  readonly #text: string;

  static readonly #everything = new FieldSelector([]);

  private constructor(requirements: FieldRequirement[]) {
    const formatted = requirements.map((r) => ({ r: Object.freeze({ ...r }), text: formatRequirement(r) }));
    formatted.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    this.requirements = Object.freeze(formatted.map((f) => f.r));
    this.#compiled = this.requirements.map((requirement) => ({ requirement, path: requirement.field.split('.') }));
    this.#text = formatted.map((f) => f.text).join(',');
  }

  /**
   * Parses a selector such as `metadata.name=web,metadata.namespace!=kube-system`. The empty
   * string selects everything; empty terms (`a=b,,c=d`) are skipped and whitespace around a field
   * name or value is ignored.
   * @throws SelectorError naming the offending term or field.
   */
  static parse(text: string, options?: FieldSelectorParseOptions): FieldSelector {
    const allowed = options?.allowedFields ?? defaultSelectableFields;
    const requirements: FieldRequirement[] = [];
    for (const term of splitTerms(text)) {
      if (term.trim() === '') continue;
      requirements.push(parseTerm(text, term, allowed));
    }
    return new FieldSelector(requirements);
  }

  /** The selector that matches every object. */
  static everything(): FieldSelector {
    return FieldSelector.#everything;
  }

  /** True when the selector has no requirements (matches everything). */
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /** True when every requirement holds for the values `getField` returns; `undefined` reads as ''. */
  matches(getField: (field: string) => string | undefined): boolean {
    for (const { field, operator, value } of this.requirements) {
      const actual = getField(field) ?? '';
      if (operator === '!=' ? actual === value : actual !== value) return false;
    }
    return true;
  }

  /**
   * True when the object satisfies every requirement. A field is read as a dotted path into the
   * object (`metadata.name`, `involvedObject.uid`, `type`); strings are compared as they are,
   * numbers and booleans in their JSON spelling, anything else or a missing field as ''.
   */
  matchesObject(obj: KubeObject): boolean {
    for (const { requirement, path } of this.#compiled) {
      const actual = readPath(obj, path);
      if (requirement.operator === '!=' ? actual === requirement.value : actual !== requirement.value) return false;
    }
    return true;
  }

  /** The canonical text: terms sorted, values escaped. `parse(toString())` round-trips. */
  toString(): string {
    return this.#text;
  }
}

/** Parses a field selector; the same as {@link FieldSelector.parse}. */
export function parseFieldSelector(text: string, options?: FieldSelectorParseOptions): FieldSelector {
  return FieldSelector.parse(text, options);
}

/** Escapes a value for a field selector (`\` -> `\\`, `,` -> `\,`, `=` -> `\=`). */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (ch) => `\\${ch}`);
}

function formatRequirement(r: FieldRequirement): string {
  return `${r.field}${r.operator}${escapeFieldValue(r.value)}`;
}

function readPath(obj: unknown, path: readonly string[]): string {
  let cur: unknown = obj;
  for (const segment of path) {
    if (typeof cur !== 'object' || cur === null || !Object.hasOwn(cur, segment)) return '';
    cur = (cur as Record<string, unknown>)[segment];
  }
  if (typeof cur === 'string') return cur;
  if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
  return '';
}

/** Splits on commas that are not escaped with a backslash; escapes stay in the terms. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') i++;
    else if (ch === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

function fail(text: string, token: string, detail: string): never {
  throw new SelectorError(`invalid field selector ${JSON.stringify(text)}: ${detail}`, text, token);
}

/** Characters a field name (a path such as `spec.nodeName`) never has, and that would make the canonical text ambiguous. */
const INVALID_FIELD_NAME = /[\s!=,\\]/;

function parseTerm(text: string, term: string, allowed: readonly string[] | 'any'): FieldRequirement {
  // The first unescaped operator splits the term; `!=` and `==` win over `=` at the same position.
  for (let i = 0; i < term.length; i++) {
    const ch = term[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    let operator: FieldRequirement['operator'] | undefined;
    if (ch === '!' && term[i + 1] === '=') operator = '!=';
    else if (ch === '=') operator = term[i + 1] === '=' ? '==' : '=';
    if (operator === undefined) continue;

    const field = term.slice(0, i).trim();
    if (field === '') fail(text, term.trim(), `missing field name in "${term.trim()}"`);
    // Such a name would print as another selector: "metadata.name! =" is not "metadata.name!=".
    if (INVALID_FIELD_NAME.test(field)) fail(text, field, `invalid field name "${field}" (no whitespace, '!', '=', ',' or '\\')`);
    if (allowed !== 'any' && !allowed.includes(field)) {
      fail(text, field, `field label not supported: "${field}" (supported: ${allowed.join(', ')})`);
    }
    const value = unescapeValue(text, term.slice(i + operator.length).trim());
    return { field, operator, value };
  }
  return fail(text, term.trim(), `expected an operator ('=', '==' or '!=') in "${term.trim()}"`);
}

function unescapeValue(text: string, raw: string): string {
  if (!/[\\=]/.test(raw)) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i] as string;
    if (ch === '\\') {
      const next = raw[i + 1];
      if (next !== '\\' && next !== ',' && next !== '=') {
        const sequence = next === undefined ? '\\' : `\\${next}`;
        fail(text, raw, `invalid escape sequence "${sequence}" in value "${raw}"`);
      }
      out += next;
      i++;
    } else if (ch === '=') {
      fail(text, raw, `unescaped '=' in value "${raw}" (write \\=)`);
    } else {
      out += ch;
    }
  }
  return out;
}
