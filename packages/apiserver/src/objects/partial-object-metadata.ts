/**
 * Metadata-only reads, as kube-apiserver serves them to client-go's metadata client and
 * controller-runtime's metadata informers: an `Accept` of
 * `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` on a list answers
 * `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{list metadata},"items":[{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{...}}]}`;
 * `as=PartialObjectMetadata` on a get answers one such item, and on a watch makes every event object
 * (bookmarks included) one. `v=v1beta1` works alike. Asking for the list form on a get or a watch,
 * or the single form on a list, is 406 NotAcceptable with kube-apiserver's message.
 *
 * The Accept entries are taken in order, as for Tables (see `table/table-request.ts`): the first
 * plain JSON, Table or metadata entry decides; entries this server does not produce are skipped.
 */
import type { KubeObject } from '@kubeloop/resource';
import { notAcceptable } from '../http/status-error.js';
import { isPlainJson, parseAccept, tableVersionOf } from '../table/table-request.js';

/** The apiVersion of the PartialObjectMetadata objects answered. */
export type PartialMetadataVersion = 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';

/** The read a metadata request is for. */
export type MetadataReadVerb = 'get' | 'list' | 'watch';

/**
 * The PartialObjectMetadata version a read asks for, or undefined for plain JSON or a Table.
 * @throws {@link StatusError} 406 when the form asked for does not fit the read (a list form on a get or a watch, a single form on a list).
 */
export function partialMetadataRequestOf(accept: string | undefined, verb: MetadataReadVerb): PartialMetadataVersion | undefined {
  if (!accept || !accept.includes('as=PartialObjectMetadata')) return undefined;
  for (const range of parseAccept(accept)) {
    if (isPlainJson(range) || tableVersionOf(range) !== undefined) return undefined;
    if (range.type !== 'application/json' || range.params.get('g') !== 'meta.k8s.io') continue;
    const as = range.params.get('as');
    if (as !== 'PartialObjectMetadata' && as !== 'PartialObjectMetadataList') continue;
    const v = range.params.get('v');
    if (v !== 'v1' && v !== 'v1beta1') continue;
    const wantsList = as === 'PartialObjectMetadataList';
    if (wantsList && verb !== 'list') throw notAcceptable('you requested PartialObjectMetadataList, but the requested object is not a list');
    if (!wantsList && verb === 'list') throw notAcceptable('you requested PartialObjectMetadata, but the requested object is a list');
    return `meta.k8s.io/${v}`;
  }
  return undefined;
}

/** One object's `PartialObjectMetadata` JSON. */
export function partialObjectMetadataJson(apiVersion: PartialMetadataVersion, object: Pick<KubeObject, 'metadata'>): string {
  return `{"kind":"PartialObjectMetadata","apiVersion":"${apiVersion}","metadata":${JSON.stringify(object.metadata)}}`;
}

/** A `PartialObjectMetadataList`'s JSON up to its items (which follow, comma-separated, then `]}`): a large list is sent as it is made. */
export function partialObjectMetadataListHead(apiVersion: PartialMetadataVersion, listMetadata: Readonly<Record<string, unknown>>): string {
  return `{"kind":"PartialObjectMetadataList","apiVersion":"${apiVersion}","metadata":${JSON.stringify(listMetadata)},"items":[`;
}
