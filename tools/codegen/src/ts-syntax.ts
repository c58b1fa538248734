/** Small pieces of TypeScript syntax: identifiers, string literals, TSDoc comments, type names. */

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A single-quoted TypeScript string literal. */
export function stringLiteral(value: string): string {
  const escaped = JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'");
  return `'${escaped}'`;
}

/** A property name as written in an interface: bare when it is an identifier, quoted otherwise. */
export function propertyName(name: string): string {
  return identifier.test(name) ? name : stringLiteral(name);
}

/** `targetRef` -> `TargetRef`, `app.kubernetes.io/name` -> `AppKubernetesIoName`, `v1beta1` -> `V1beta1`. */
export function pascalCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  const joined = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  if (joined === '') return 'Field';
  return /^[0-9]/.test(joined) ? `N${joined}` : joined;
}

/**
 * The type name of one element of an array named `name`: `Targets` -> `Target`, `Policies` ->
 * `Policy`, `Addresses` -> `Address`; `Item` is appended when the name does not look plural.
 */
export function singularTypeName(name: string): string {
  if (/[^aeiou]ies$/.test(name)) return `${name.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/.test(name)) return name.slice(0, -2);
  if (/[^su]s$/.test(name)) return name.slice(0, -1);
  return `${name}Item`;
}

/**
 * TSDoc comment lines for `paragraphs` (blank or missing ones are dropped), indented by
 * `indent`: one line when it fits, a block otherwise. `*\/` inside text is escaped.
 */
export function docComment(paragraphs: readonly (string | undefined)[], indent = ''): string[] {
  const lines = paragraphs
    .filter((p): p is string => typeof p === 'string' && p.trim() !== '')
    .flatMap((p, i) => [...(i > 0 ? [''] : []), ...p.trim().split(/\r?\n/).map((l) => l.trimEnd())])
    .map((l) => l.replace(/\*\//g, '*\\/'));
  if (lines.length === 0) return [];
  const single = `${indent}/** ${lines[0] ?? ''} */`;
  if (lines.length === 1 && single.length <= 120) return [single];
  return [`${indent}/**`, ...lines.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)), `${indent} */`];
}
