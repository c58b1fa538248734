/**
 * The JSONPath subset of CRD `additionalPrinterColumns`: what printer columns use in practice.
 *
 * - fields: `.spec.replicas`, `['x.y']`, `["x"]` (a leading `$` is allowed)
 * - list elements: `[0]`, `[-1]`, `[*]`
 * - filters comparing a field of the element with a literal:
 *   `[?(@.type=="Ready")]`, `[?(@.type!='Ready')]`, `[?(@.count==3)]`, `[?(@.ready==true)]`
 *
 * Missing keys select nothing (kube-apiserver evaluates with `AllowMissingKeys`). A path outside
 * this subset does not compile: its column's cells are empty.
 */

type Step =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'all' }
  | { readonly kind: 'filter'; readonly path: readonly string[]; readonly negate: boolean; readonly literal: unknown };

/** A compiled path: every value it selects, in document order. */
export type CompiledJsonPath = (root: unknown) => unknown[];

const identifier = /^[A-Za-z_$][\w$-]*/;
const filterPattern = /^\?\(@((?:\.[A-Za-z_$][\w$-]*)+)\s*(==|!=)\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)\s*\)$/;

function parseLiteral(text: string): unknown {
  if (text.startsWith("'")) return text.slice(1, -1).replace(/\\(.)/g, '$1');
  return JSON.parse(text) as unknown;
}

function parseBracket(inner: string): Step | undefined {
  const trimmed = inner.trim();
  if (trimmed === '*') return { kind: 'all' };
  if (/^-?\d+$/.test(trimmed)) return { kind: 'index', index: Number(trimmed) };
  const quoted = /^(?:'([^']*)'|"([^"]*)")$/.exec(trimmed);
  if (quoted) return { kind: 'field', name: quoted[1] ?? quoted[2] ?? '' };
  const filter = filterPattern.exec(trimmed);
  if (filter) {
    const [, path = '', op, literal = 'null'] = filter;
    return { kind: 'filter', path: path.slice(1).split('.'), negate: op === '!=', literal: parseLiteral(literal) };
  }
  return undefined;
}

/** Parses a printer column path; undefined when it is outside the supported subset. */
export function compileJsonPath(path: string): CompiledJsonPath | undefined {
  let rest = path.trim();
  // `{.spec.x}` is also accepted (kubectl's template form).
  if (rest.startsWith('{') && rest.endsWith('}')) rest = rest.slice(1, -1).trim();
  if (rest.startsWith('$')) rest = rest.slice(1);
  const steps: Step[] = [];
  while (rest !== '') {
    if (rest.startsWith('.')) {
      const name = identifier.exec(rest.slice(1));
      if (!name) return undefined;
      steps.push({ kind: 'field', name: name[0] });
      rest = rest.slice(1 + name[0].length);
    } else if (rest.startsWith('[')) {
      const end = bracketEnd(rest);
      if (end < 0) return undefined;
      const step = parseBracket(rest.slice(1, end));
      if (!step) return undefined;
      steps.push(step);
      rest = rest.slice(end + 1);
    } else {
      return undefined;
    }
  }
  return (root) => evaluate(steps, root);
}

/** Index of the `]` closing the bracket at 0, skipping quoted text; -1 when unclosed. */
function bracketEnd(text: string): number {
  let quote: string | undefined;
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === ']') return i;
  }
  return -1;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldOf(value: unknown, name: string): unknown {
  return isObject(value) && Object.prototype.hasOwnProperty.call(value, name) ? value[name] : undefined;
}

function matchesFilter(element: unknown, step: Extract<Step, { kind: 'filter' }>): boolean {
  let value: unknown = element;
  for (const name of step.path) {
    value = fieldOf(value, name);
    if (value === undefined) return false;
  }
  return (value === step.literal) !== step.negate;
}

function evaluate(steps: readonly Step[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      switch (step.kind) {
        case 'field': {
          const child = fieldOf(value, step.name);
          if (child !== undefined) next.push(child);
          break;
        }
        case 'index':
          if (Array.isArray(value)) {
            const i = step.index < 0 ? value.length + step.index : step.index;
            if (i >= 0 && i < value.length) next.push(value[i]);
          }
          break;
        case 'all':
          if (Array.isArray(value)) next.push(...(value as unknown[]));
          else if (isObject(value)) next.push(...Object.values(value));
          break;
        case 'filter':
          if (Array.isArray(value)) for (const element of value as unknown[]) if (matchesFilter(element, step)) next.push(element);
          break;
      }
    }
    current = next;
  }
  return current;
}
