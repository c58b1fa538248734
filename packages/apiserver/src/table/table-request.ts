/**
 * Whether a read asks for a Table: kubectl's human-readable `get` sends
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json`
 * (and `includeObject=Object` with `--sort-by`). The Accept entries are taken in order: the first
 * Table of `meta.k8s.io/v1` or `v1beta1`, or the first plain JSON (`application/json`, `*\/*`),
 * decides (a PartialObjectMetadata entry before any of them: see `partial-object-metadata.ts`). Entries this server does not produce (protobuf, other Table
 * versions) are skipped; with nothing usable the answer is plain JSON, as before Tables existed.
 */
import { badRequest } from '../http/status-error.js';

/** What each row's `object` holds: the object, its metadata only (the default), or nothing. */
export type IncludeObject = 'Object' | 'Metadata' | 'None';

/** A read answered as a Table. */
export interface TableRequest {
  /** The Table's (and PartialObjectMetadata's) apiVersion. */
  readonly apiVersion: 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';
  readonly includeObject: IncludeObject;
}

/** One entry of an Accept header: lower-case media type and its parameters. */
export interface MediaRange {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
}

/** The entries of an Accept header, in order. */
export function parseAccept(accept: string): MediaRange[] {
  return accept.split(',').map((entry) => {
    const [type = '', ...rest] = entry.split(';').map((part) => part.trim());
    const params = new Map<string, string>();
    for (const part of rest) {
      const eq = part.indexOf('=');
      if (eq > 0) params.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
    }
    return { type: type.toLowerCase(), params };
  });
}

/** The Table version an entry asks for, if it asks for a Table this server produces. */
export function tableVersionOf(range: MediaRange): TableRequest['apiVersion'] | undefined {
  if (range.type !== 'application/json' || range.params.get('as') !== 'Table' || range.params.get('g') !== 'meta.k8s.io') return undefined;
  const v = range.params.get('v');
  if (v === 'v1') return 'meta.k8s.io/v1';
  if (v === 'v1beta1') return 'meta.k8s.io/v1beta1';
  return undefined;
}

/** Whether an entry accepts plain JSON objects. */
export function isPlainJson(range: MediaRange): boolean {
  if (range.params.has('as')) return false;
  return range.type === 'application/json' || range.type === '*/*' || range.type === 'application/*' || range.type === '';
}

/**
 * The Table a read asks for, or undefined for plain JSON.
 * @throws {@link StatusError} 400 when a Table is asked for with an unknown `includeObject`.
 */
export function tableRequestOf(accept: string | undefined, params: URLSearchParams): TableRequest | undefined {
  if (!accept || !accept.includes('as=Table')) return undefined;
  for (const range of parseAccept(accept)) {
    if (isPlainJson(range)) return undefined;
    const apiVersion = tableVersionOf(range);
    if (!apiVersion) continue;
    const includeObject = params.get('includeObject') ?? '';
    if (includeObject === '') return { apiVersion, includeObject: 'Metadata' };
    if (includeObject === 'Object' || includeObject === 'Metadata' || includeObject === 'None') return { apiVersion, includeObject };
    throw badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(includeObject)}: must be 'Metadata', 'Object', 'None', or empty`);
  }
  return undefined;
}
