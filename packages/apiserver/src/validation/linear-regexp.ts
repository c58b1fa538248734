/**
 * CRD `pattern`s compiled as kube-apiserver compiles them: Go's `regexp` syntax (RE2), matched
 * in time linear in the input by the pure-JavaScript RE2 port `re2js`. JavaScript's own RegExp
 * backtracks: `^(a+)+$` against thirty `a`s and a `!` blocks the event loop for seconds, and
 * every request with it. RE2 has no backreferences or lookaround, so such patterns are rejected
 * when the CRD is written, exactly as the real server rejects them.
 *
 * Linear is not cheap: re2js's worst case costs about (input length x program instructions), so
 * `\w{500}\d` against a 0.3 MB string took 7.8 s. Each match is priced before it runs, see
 * `pattern-budget.ts`.
 */
import { RE2JS } from 're2js';

/** A compiled pattern and the size its matching cost scales with. */
export interface CompiledPattern {
  /** The pattern as written in the schema. */
  readonly source: string;
  /** Instructions of the compiled program: a match costs up to `input length x programSize`. */
  readonly programSize: number;
  /** True when the pattern matches somewhere in `input` (unanchored, as Go's `MatchString`). */
  test(input: string): boolean;
}

/**
 * Compiles `pattern` with RE2 syntax; the error text is Go's (`error parsing regexp: missing
 * argument to repetition operator: \`+\``), because RE2's messages are.
 *
 * @throws Error when the pattern is not valid RE2 syntax.
 */
export function compileLinearPattern(pattern: string): CompiledPattern {
  const re = RE2JS.compile(pattern);
  // `matcher().find()` runs re2js's one-pass, bit-state or NFA engine: its worst case per
  // (character x instruction) is the lowest measured (its DFA, when it thrashes, costs twice that).
  return { source: pattern, programSize: re.programSize(), test: (input: string) => re.matcher(input).find() };
}

/** The problem with a pattern as kube-apiserver words it, or undefined when it compiles. */
export function patternProblem(err: unknown): string {
  return `must be a valid regular expression, but isn't: ${err instanceof Error ? err.message : String(err)}`;
}
