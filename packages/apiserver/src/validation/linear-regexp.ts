/**
 * CRD `pattern`s compiled as kube-apiserver compiles them: Go's `regexp` syntax (RE2), matched
 * in time linear in the input by the pure-JavaScript RE2 port `re2js`. JavaScript's own RegExp
 * backtracks: `^(a+)+$` against thirty `a`s and a `!` blocks the event loop for seconds, and
 * every request with it. RE2 has no backreferences or lookaround, so such patterns are rejected
 * when the CRD is written, exactly as the real server rejects them.
 */
import { RE2JS } from 're2js';
import type { CodeOptions } from 'ajv';

type RegExpEngine = NonNullable<CodeOptions['regExp']>;
type RegExpLike = ReturnType<RegExpEngine>;

/**
 * Compiles `pattern` with RE2 syntax; the error text is Go's (`error parsing regexp: missing
 * argument to repetition operator: \`+\``), because RE2's messages are.
 *
 * @throws Error when the pattern is not valid RE2 syntax.
 */
export function compileLinearPattern(pattern: string): RegExpLike {
  const re = RE2JS.compile(pattern);
  // Ajv caches compiled patterns by `toString()`: it must tell patterns apart.
  const compiled: RegExpLike & { toString(): string } = { test: (input: string) => re.matcher(input).find(), toString: () => `re2:${pattern}` };
  return compiled;
}

/** The problem with a pattern as kube-apiserver words it, or undefined when it compiles. */
export function patternProblem(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    return `must be a valid regular expression, but isn't: ${(err as Error).message}`;
  }
}

/** Ajv's `code.regExp` option: every `pattern` goes through RE2. */
export const linearRegExpEngine: RegExpEngine = Object.assign((pattern: string) => compileLinearPattern(pattern), { code: 'compileLinearPattern' });
