/**
 * The query parameters of list and watch requests, parsed and validated with the real server's
 * rules (`ValidateListOptions`: 422 `ListOptions.meta.k8s.io "" is invalid: ...`) and errors
 * (400 for selectors and resource versions that do not parse).
 */
import { FieldSelector, LabelSelector, ShardSelector, isSelectorError } from '@kubeloop/resource';
import { decodeContinueToken } from '../storage/continue-token.js';
import { queryBool } from './query-bool.js';
import type { ContinueToken } from '../storage/continue-token.js';
import { parseResourceVersionText } from '../storage/resource-version.js';
import type { ResourceType } from '../types/resource-type.js';
import { badRequest, forbiddenValue, invalid, unsupportedValue } from './status-error.js';
import type { FieldProblem, StatusError } from './status-error.js';

/** Parsed list/watch parameters. */
export interface ListOptions {
  readonly watch: boolean;
  readonly labelSelector: LabelSelector | undefined;
  readonly fieldSelector: FieldSelector | undefined;
  /** `undefined` for '' (newest), 0 for '0' (any), else the number. */
  readonly resourceVersion: number | undefined;
  /** The text as sent ('' when absent). */
  readonly resourceVersionText: string;
  readonly resourceVersionMatch: 'NotOlderThan' | 'Exact' | undefined;
  readonly limit: number | undefined;
  readonly continueToken: ContinueToken | undefined;
  readonly allowWatchBookmarks: boolean;
  readonly timeoutSeconds: number | undefined;
  readonly sendInitialEvents: boolean | undefined;
  /** KEP-5866 `shardSelector`; undefined when absent or when the server runs without `shardedListAndWatch`. */
  readonly shardSelector?: ShardSelector | undefined;
}

/** Server features that change how list and watch parameters are read. */
export interface ListFeatures {
  /** Read `shardSelector` (KEP-5866); false: ignore it, as a server without the feature does. */
  readonly shardedListAndWatch: boolean;
}


const maxInt64 = 2n ** 63n - 1n;

/** Parses an integer query parameter as Go's `strconv.ParseInt(text, 10, 64)` does; 400 with Go's message otherwise. */
function parseInt64(name: string, text: string): number {
  const invalid = (why: string): StatusError => badRequest(`${name}: Invalid value: ${JSON.stringify(text)}: strconv.ParseInt: parsing ${JSON.stringify(text)}: ${why}`);
  if (!/^[-+]?\d+$/.test(text)) throw invalid('invalid syntax');
  const value = BigInt(text);
  if (value > maxInt64 || value < -maxInt64 - 1n) throw invalid('value out of range');
  return Number(value);
}

/** Parses a resourceVersion parameter: undefined for '', else a non-negative integer; 400 otherwise. */
export function parseResourceVersion(text: string): number | undefined {
  return text === '' ? undefined : parseResourceVersionText('resourceVersion', text);
}

function selectableFields(type: ResourceType): string[] {
  return ['metadata.name', 'metadata.namespace', ...type.extraSelectableFields];
}

function parseFieldSelector(type: ResourceType, text: string): FieldSelector | undefined {
  if (text.trim() === '') return undefined;
  let selector: FieldSelector;
  try {
    selector = FieldSelector.parse(text, { allowedFields: 'any' });
  } catch (err) {
    if (isSelectorError(err)) throw badRequest(err.message);
    throw err;
  }
  const allowed = selectableFields(type);
  for (const { field } of selector.requirements) {
    if (!allowed.includes(field)) {
      if (type.custom) throw badRequest(`"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
      throw badRequest(`field label not supported: ${field}`);
    }
  }
  return selector.isEmpty() ? undefined : selector;
}

function parseLabelSelector(text: string): LabelSelector | undefined {
  if (text.trim() === '') return undefined;
  try {
    const selector = LabelSelector.parse(text);
    return selector.isEmpty() ? undefined : selector;
  } catch (err) {
    if (isSelectorError(err)) throw badRequest(`unable to parse requirement: ${err.message}`);
    throw err;
  }
}

/** The `shardSelector` parameter: undefined when absent or empty (as kube-apiserver, which parses only a non-empty one); 400 when malformed. */
function parseShardSelector(text: string | null): ShardSelector | undefined {
  if (text === null || text === '') return undefined;
  try {
    return ShardSelector.parse(text);
  } catch (err) {
    if (isSelectorError(err)) throw badRequest(err.message);
    throw err;
  }
}

/** Parses and validates the list/watch parameters of a request for `type`. */
export function parseListOptions(type: ResourceType, params: URLSearchParams, features: ListFeatures = { shardedListAndWatch: true }): ListOptions {
  const watch = queryBool(params, 'watch') ?? false;
  const resourceVersionText = params.get('resourceVersion') ?? '';
  const matchText = params.get('resourceVersionMatch') ?? '';
  const continueText = params.get('continue') ?? '';
  const sendInitialEvents = queryBool(params, 'sendInitialEvents');

  const problems: FieldProblem[] = [];
  if (watch) {
    if (sendInitialEvents !== undefined && matchText !== 'NotOlderThan') {
      problems.push(forbiddenValue('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (matchText) {
      if (sendInitialEvents === undefined) problems.push(forbiddenValue('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (matchText !== 'NotOlderThan') problems.push(unsupportedValue('resourceVersionMatch', matchText, ['NotOlderThan']));
      if (continueText) problems.push(forbiddenValue('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (matchText) {
      if (!resourceVersionText) problems.push(forbiddenValue('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (continueText) problems.push(forbiddenValue('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (matchText === 'Exact') {
        if (resourceVersionText === '0') problems.push(forbiddenValue('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
      } else if (matchText !== 'NotOlderThan') {
        problems.push(unsupportedValue('resourceVersionMatch', matchText, ['Exact', 'NotOlderThan', '']));
      }
    }
    if (sendInitialEvents !== undefined) problems.push(forbiddenValue('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (problems.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', problems);

  const resourceVersion = parseResourceVersion(resourceVersionText);
  const limitText = params.get('limit');
  let limit: number | undefined;
  if (limitText !== null && limitText !== '') {
    const n = parseInt64('limit', limitText);
    limit = n > 0 ? n : undefined;
  }
  let continueToken: ContinueToken | undefined;
  if (continueText && !watch) {
    if (resourceVersionText && resourceVersionText !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    continueToken = decodeContinueToken(continueText);
  }
  const timeoutText = params.get('timeoutSeconds');
  let timeoutSeconds: number | undefined;
  if (timeoutText !== null && timeoutText !== '') {
    // Zero or negative: no timeout of the client's (Go: a timer that has already fired would end the watch at once).
    timeoutSeconds = parseInt64('timeoutSeconds', timeoutText);
  }

  return {
    watch,
    labelSelector: parseLabelSelector(params.get('labelSelector') ?? ''),
    fieldSelector: parseFieldSelector(type, params.get('fieldSelector') ?? ''),
    resourceVersion,
    resourceVersionText,
    resourceVersionMatch: matchText === 'NotOlderThan' || matchText === 'Exact' ? matchText : undefined,
    limit,
    continueToken,
    allowWatchBookmarks: queryBool(params, 'allowWatchBookmarks') ?? false,
    timeoutSeconds,
    sendInitialEvents,
    shardSelector: features.shardedListAndWatch ? parseShardSelector(params.get('shardSelector')) : undefined,
  };
}
