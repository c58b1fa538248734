/**
 * Metadata-only reads of one kind (client-go's `metadata` client): list, get and watch answer
 * `PartialObjectMetadata` objects, `{apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata}`,
 * asked for with the `Accept` forms kube-apiserver serves. For kinds whose bodies an operator does not
 * need (Secrets, Pods, ConfigMaps): the cache holds names, labels, annotations, owners and
 * resourceVersions, not data. It satisfies the operator's `ListWatchClient`, so a
 * `KubernetesBasedInformer<PartialObjectMetadata>` over it is a metadata informer.
 */
import { CodecError, KubeloopError } from '../errors.js';
import type { Schema } from '../kind.js';
import type { Identifier, KubeObject, ListObject, ObjectMeta } from '../object.js';
import { StreamWatchResponse } from '../watch/stream-watch-response.js';
import { listQuery, watchQuery } from './client.js';
import { ResourcePath } from './resource-path.js';
import { apiErrorFromResponse } from './transport.js';
import type { HttpMethod, QueryParams, Transport, TransportResponse } from './transport.js';
import type { ListOptions, RequestOptions, WatchOptions, WatchResponse } from './types.js';

/** An object's metadata only, as the API server answers a metadata-only read. */
export interface PartialObjectMetadata extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

/** The `Accept` of a metadata-only list (protobuf is not spoken here, so JSON only). */
export const PARTIAL_OBJECT_METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
/** The `Accept` of a metadata-only get or watch. */
export const PARTIAL_OBJECT_METADATA_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

const API_VERSION = 'meta.k8s.io/v1';
const KIND = 'PartialObjectMetadata';

/** Reads the metadata of the objects of one kind. Failures reject as `Client`'s do (`ApiError`, `NetworkError`, `CodecError`). */
export class MetadataClient {
  /** The kind whose objects are read. */
  readonly kind: Schema;
  readonly #transport: Transport;
  readonly #paths: ResourcePath;

  constructor(kind: Schema, transport: Transport) {
    this.kind = kind;
    this.#transport = transport;
    this.#paths = new ResourcePath(kind);
  }

  /** The metadata of one object. */
  async get(id: Identifier, options: RequestOptions = {}): Promise<PartialObjectMetadata> {
    if (!id.name) throw new KubeloopError('InvalidArgument', `${this.kind.kind}: a name is required`);
    const namespace = this.kind.scope === 'Namespaced' ? (id.namespace ?? '') : '';
    if (this.kind.scope === 'Namespaced' && !namespace) throw new KubeloopError('InvalidArgument', `${this.kind.kind} is namespaced: a namespace is required`);
    const res = await this.#call(this.#paths.object(namespace, id.name), undefined, PARTIAL_OBJECT_METADATA_ACCEPT, options);
    return this.#decodeItem(parse(res.body, this.kind.kind), res.body);
  }

  /** One page of metadata; namespace '' lists all namespaces. */
  async list(namespace: string, options: ListOptions = {}): Promise<ListObject<PartialObjectMetadata>> {
    const res = await this.#call(this.#paths.collection(namespace), listQuery(options), PARTIAL_OBJECT_METADATA_LIST_ACCEPT, options);
    const list = parse(res.body, this.kind.kind) as { metadata?: ListObject['metadata']; items?: unknown };
    const items = list.items ?? [];
    if (!Array.isArray(items)) throw new CodecError(`${this.kind.kind}: PartialObjectMetadataList items is not an array`, { input: res.body });
    return {
      apiVersion: API_VERSION,
      kind: 'PartialObjectMetadataList',
      metadata: list.metadata ?? {},
      items: items.map((item: unknown) => this.#decodeItem(item, res.body)),
    };
  }

  /** A watch whose event objects (bookmarks included) are `PartialObjectMetadata`. Options as `Client.watch`. */
  async watch(namespace: string, options: WatchOptions = {}): Promise<WatchResponse<PartialObjectMetadata>> {
    const path = this.#paths.collection(namespace);
    const res = await this.#transport.stream({ method: 'GET', path, query: watchQuery(options), accept: PARTIAL_OBJECT_METADATA_ACCEPT, signal: options.signal });
    return new StreamWatchResponse<PartialObjectMetadata>(res.body, { signal: options.signal, apiVersion: API_VERSION, kind: KIND, description: `metadata watch ${path}` });
  }

  async #call(path: string, query: QueryParams | undefined, accept: string, options: RequestOptions): Promise<TransportResponse> {
    const method: HttpMethod = 'GET';
    const res = await this.#transport.request({ method, path, query, accept, signal: options.signal, timeoutMs: options.timeoutMs });
    if (res.status < 200 || res.status >= 300) throw apiErrorFromResponse(res.status, res.headers, res.body);
    return res;
  }

  #decodeItem(value: unknown, input: string): PartialObjectMetadata {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CodecError(`${this.kind.kind}: a PartialObjectMetadata is not an object`, { input });
    const item = value as Partial<PartialObjectMetadata>;
    if (typeof item.metadata !== 'object' || item.metadata === null) throw new CodecError(`${this.kind.kind}: a PartialObjectMetadata has no metadata`, { input });
    item.apiVersion ??= API_VERSION;
    item.kind ??= KIND;
    return item as PartialObjectMetadata;
  }
}

function parse(text: string, kind: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new CodecError(`${kind}: response is not JSON: ${(cause as Error).message}`, { cause, input: text });
  }
}
