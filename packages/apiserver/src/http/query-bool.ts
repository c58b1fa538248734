/**
 * Boolean query parameters (`watch`, `allowWatchBookmarks`, `sendInitialEvents`,
 * `orphanDependents`, `force`...) as kube-apiserver reads them: with Go's `strconv.ParseBool`, so
 * `1 t T TRUE true True` are true, `0 f F FALSE false False` are false, and anything else is 400.
 * (The Python client sends `watch=True`.)
 */
import { badRequest } from './status-error.js';

const truthy = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const falsy = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Parses a boolean text as Go's strconv.ParseBool; 400 BadRequest otherwise. */
export function parseGoBool(text: string): boolean {
  if (truthy.has(text)) return true;
  if (falsy.has(text)) return false;
  throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
}

/** A boolean query parameter: undefined when absent (or empty), else {@link parseGoBool}. */
export function queryBool(params: URLSearchParams, name: string): boolean | undefined {
  const text = params.get(name);
  return text === null || text === '' ? undefined : parseGoBool(text);
}
