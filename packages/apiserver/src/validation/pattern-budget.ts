/**
 * What one CRD may spend on regular expressions, so that no write freezes the server (it serves
 * every client on one event loop). kube-apiserver has no such limits: it would spend the time
 * (Go's RE2 is faster, and its requests run in parallel). Both budgets were chosen by measuring
 * re2js's worst cases on a loaded 2-core machine; see the README's "Limits and hostile input".
 *
 * - Matching: a match costs up to `value length x program instructions`; an object's matches
 *   together may cost {@link maxPatternMatchCost} (about 30 ms at worst). Past it the write is a
 *   422 naming the field, before the match that would exceed it runs.
 * - Compiling: each distinct pattern of a CRD version compiles once, when the CRD is written;
 *   together they may cost {@link maxPatternCompileCost} (about 30 ms at worst), priced from the
 *   pattern's text before it compiles. Past it the CRD is a 422.
 */
import { compileLinearPattern, patternProblem } from './linear-regexp.js';
import type { CompiledPattern } from './linear-regexp.js';
import { SchemaCompileError } from './schema-compile-error.js';

/** Matching cost (characters x instructions) one object's pattern matches may add up to. */
export const maxPatternMatchCost = 500_000;

/** Compiling cost (estimated instructions, plus {@link patternCompileOverhead} per pattern) of one schema's distinct patterns. */
export const maxPatternCompileCost = 60_000;

/** The fixed cost of compiling any pattern, in instructions (measured: re2js spends as long on any pattern as on about 400 instructions). */
export const patternCompileOverhead = 400;

/**
 * The patterns of one schema, each compiled once (patterns that repeat, as they do in large
 * CRDs, share one program) within {@link maxPatternCompileCost}.
 */
export class PatternCompiler {
  private readonly compiled = new Map<string, CompiledPattern>();
  private spent = 0;

  /**
   * The compiled `source`; `field` names its `pattern` keyword in errors.
   * @throws {@link SchemaCompileError} when it is not RE2 syntax or the schema's patterns exceed the budget.
   */
  compile(source: string, field: string): CompiledPattern {
    const known = this.compiled.get(source);
    if (known !== undefined) return known;
    const cost = estimatedProgramSize(source, maxPatternCompileCost) + patternCompileOverhead;
    if (this.spent + cost > maxPatternCompileCost) {
      const detail = `the schema's distinct patterns are too large to compile within the server's budget: ${this.compiled.size + 1} patterns of an estimated ${this.spent + cost} instructions (counting ${patternCompileOverhead} per pattern) exceed the limit of ${maxPatternCompileCost}`;
      throw new SchemaCompileError(field, detail, { value: source });
    }
    this.spent += cost;
    let pattern: CompiledPattern;
    try {
      pattern = compileLinearPattern(source);
    } catch (err) {
      throw new SchemaCompileError(field, patternProblem(err), { value: source, cause: err });
    }
    this.compiled.set(source, pattern);
    return pattern;
  }
}

/**
 * An upper bound of the instructions RE2 compiles `pattern` into, from its text alone (no
 * parsing): every atom counts 1, a group its contents plus 2, `*`, `+`, `?` and `|` add 1, and
 * `{n,m}` repeats what it follows max(n, m) times, plus one instruction per copy. Stops counting
 * past `cap`.
 */
export function estimatedProgramSize(pattern: string, cap: number): number {
  // Per open group: the size so far and the size of its last atom (what a repetition repeats).
  const frames: { total: number; last: number }[] = [{ total: 0, last: 0 }];
  let top = frames[0]!;
  const atom = (size: number): void => {
    top.total += size;
    top.last = size;
  };
  for (let i = 0; i < pattern.length && top.total <= cap; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1];
      if ((next === 'p' || next === 'P') && pattern[i + 2] === '{') i = closing(pattern, i + 2, '}');
      else if (next === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const stop = end < 0 ? pattern.length : end;
        atom(stop - (i + 2));
        i = end < 0 ? pattern.length : end + 1;
        continue;
      } else i++;
      atom(1);
    } else if (c === '[') {
      i = classEnd(pattern, i);
      atom(1);
    } else if (c === '(') {
      top = { total: 0, last: 0 };
      frames.push(top);
    } else if (c === ')' && frames.length > 1) {
      const group = frames.pop()!.total + 2;
      top = frames[frames.length - 1]!;
      atom(group);
    } else if (c === '{') {
      const repeat = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (repeat === null) atom(1);
      else {
        const min = Number(repeat[1]);
        const max = repeat[2] === undefined ? min : repeat[3] === '' ? min + 1 : Number(repeat[3]);
        const copies = Math.max(min, max, 1);
        top.total += top.last * (copies - 1) + copies;
        top.last = top.last * copies + copies;
        i += repeat[0].length - 1;
      }
    } else if (c === '*' || c === '+' || c === '?' || c === '|') {
      top.total += 1;
    } else atom(1);
  }
  let total = 0;
  for (const frame of frames) total += frame.total + 2;
  return Math.min(total, cap + 1);
}

/** The index of the `close` that ends what starts at `open`, or the last index. */
function closing(pattern: string, open: number, close: string): number {
  const end = pattern.indexOf(close, open);
  return end < 0 ? pattern.length - 1 : end;
}

/** The index of the `]` that ends the character class starting at `open` (`[]a]`, `[^]a]`, `[[:alpha:]]`, escapes). */
function classEnd(pattern: string, open: number): number {
  let i = open + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  for (; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '[' && pattern[i + 1] === ':') i = closing(pattern, i + 2, ':]') + 1;
    else if (c === ']') return i;
  }
  return pattern.length - 1;
}
