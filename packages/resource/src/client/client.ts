import type { KubeConfig } from '@kubernetes/client-node';
import { ApiError, CodecError, KubeloopError, isApiError, isGone } from '../errors.js';
import type { Kind } from '../kind.js';
import type { Identifier, KubeObject, ListObject } from '../object.js';
import { StreamWatchResponse } from '../watch/stream-watch-response.js';
import { RequestRetry } from './request-retry.js';
import type { RequestRetryOptions } from './request-retry.js';
import { ResourcePath } from './resource-path.js';
import { HttpTransport, apiErrorFromResponse } from './transport.js';
import type { HttpMethod, HttpTransportOptions, QueryParams, Transport, TransportResponse } from './transport.js';
import type { DeleteOptions, ListOptions, MergePatch, Patch, RequestOptions, StatusOf, WatchOptions, WatchResponse, WriteOptions } from './types.js';
import type { ShardSelector } from '../selector/shard-selector.js';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

/** Options of a {@link Client}. */
export interface ClientOptions {
  /**
   * Retries of 429 and (for idempotent requests) 5xx answers, honouring `Retry-After` (see
   * `RequestRetryOptions`); `false` turns them off. Default: on, 3 retries, 500 ms doubling to 5 s,
   * jittered (kube-rs' default policy).
   */
  retry?: RequestRetryOptions | false | undefined;
}

/** One request of a {@link Client}: what `#call` sends (its options come apart). */
interface ApiCall {
  method: HttpMethod;
  path: string;
  query?: QueryParams | undefined;
  body?: string | undefined;
  contentType?: string | undefined;
}

/**
 * A typed client for one kind: the Kubernetes REST verbs over a {@link Transport}. Failures reject with typed
 * errors: `ApiError` for answers of the server (see the `isNotFound`, `isConflict`... guards), `NetworkError`
 * when there was no answer (including timeouts and aborts), `CodecError` for bodies that are not JSON objects.
 * Objects of lists get `apiVersion` and `kind` filled in when the server leaves them out.
 */
export class Client<T extends KubeObject = KubeObject> {
  /** The kind this client reads and writes. */
  readonly kind: Kind<T>;
  readonly #transport: Transport;
  readonly #paths: ResourcePath;
  readonly #namespaced: boolean;
  readonly #retry: RequestRetry | undefined;

  /** @throws RangeError for a bad `options.retry`. */
  constructor(kind: Kind<T>, transport: Transport, options: ClientOptions = {}) {
    this.kind = kind;
    this.#retry = options.retry === false ? undefined : new RequestRetry(options.retry);
    this.#transport = transport;
    this.#paths = new ResourcePath(kind);
    this.#namespaced = kind.scope === 'Namespaced';
  }

  /** Reads one object. */
  async get(id: Identifier, options: RequestOptions = {}): Promise<T> {
    const res = await this.#call({ method: 'GET', path: this.#objectPath(id) }, options);
    return this.#decodeObject(res);
  }

  /** Reads one page of objects; namespace '' lists all namespaces (and is the only choice for cluster-scoped kinds). */
  async list(namespace: string, options: ListOptions = {}): Promise<ListObject<T>> {
    const res = await this.#call({ method: 'GET', path: this.#paths.collection(namespace), query: listQuery(options) }, options);
    return this.#decodeList(res);
  }

  /**
   * Reads every page, following `continue` tokens, into one list whose `metadata.resourceVersion` is that of
   * the last page. When a continue token has expired (410) the listing restarts once from the beginning.
   */
  async listAll(namespace: string, options: ListOptions = {}): Promise<ListObject<T>> {
    for (let attempt = 0; ; attempt++) {
      const items: T[] = [];
      let last: ListObject<T> | undefined;
      try {
        for await (const page of this.listPages(namespace, options)) {
          for (const item of page.items) items.push(item);
          last = page;
        }
      } catch (err) {
        // Only a token this method obtained is worth restarting for; the caller's own token is the caller's.
        if (attempt === 0 && isGone(err) && last !== undefined && options.continue === undefined) continue;
        throw err;
      }
      const { apiVersion, kind, metadata } = last!;
      return { apiVersion, kind, metadata: { resourceVersion: metadata.resourceVersion, ...(metadata.shardInfo && { shardInfo: metadata.shardInfo }) }, items };
    }
  }

  /** Yields each page of a listing, following `continue` tokens; a 410 on a token is thrown, not retried. */
  async *listPages(namespace: string, options: ListOptions = {}): AsyncIterable<ListObject<T>> {
    let page = await this.list(namespace, options);
    yield page;
    while (page.metadata.continue) {
      // The API rejects a resourceVersion (match) together with a continue token: the token carries it.
      page = await this.list(namespace, { ...options, continue: page.metadata.continue, resourceVersion: undefined, resourceVersionMatch: undefined });
      yield page;
    }
  }

  /** Reads one page of objects into `into`, replacing its `apiVersion`, `kind`, `metadata` and `items`. */
  async listInto(namespace: string, options: ListOptions, into: ListObject<T>): Promise<void> {
    const list = await this.list(namespace, options);
    into.apiVersion = list.apiVersion;
    into.kind = list.kind;
    into.metadata = list.metadata;
    into.items = list.items;
  }

  /**
   * Opens a watch. Resolves when the server answered 200 (waiting for those headers is bounded by the
   * transport's default timeout); any other answer rejects with an `ApiError`. The stream itself has no
   * timeout other than the server's `timeoutSeconds`; stop it with `stop()` or `options.signal`.
   */
  async watch(namespace: string, options: WatchOptions = {}): Promise<WatchResponse<T>> {
    const path = this.#paths.collection(namespace);
    const query = watchQuery(options);
    const res = await this.#transport.stream({ method: 'GET', path, query, signal: options.signal }).catch((error: unknown) => {
      throw this.#explainNotServed(error, 'GET', path);
    });
    return new StreamWatchResponse<T>(res.body, {
      signal: options.signal,
      apiVersion: this.kind.apiVersion,
      kind: this.kind.kind,
      description: `watch ${path}`,
    });
  }

  /** Creates an object in `obj.metadata.namespace`. */
  async create(obj: T, options: WriteOptions = {}): Promise<T> {
    const path = this.#paths.collection(this.#namespaceOf(obj.metadata.namespace));
    const res = await this.#call({ method: 'POST', path, query: writeQuery(options), body: JSON.stringify(obj), contentType: 'application/json' }, options);
    return this.#decodeObject(res);
  }

  /** Replaces an object (PUT); `options.subresource` targets a subresource instead. */
  async update(obj: T, options: WriteOptions = {}): Promise<T> {
    const path = this.#objectPath(identifierOfObject(obj), options.subresource);
    const res = await this.#call({ method: 'PUT', path, query: writeQuery(options), body: JSON.stringify(obj), contentType: 'application/json' }, options);
    return this.#decodeObject(res);
  }

  /** Replaces the `status` subresource of an object. */
  updateStatus(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.update(obj, { ...options, subresource: 'status' });
  }

  /**
   * Patches an object: a JSON patch (`{operations}`), a merge patch (`{merge}`), a strategic merge patch
   * (`{strategic}`, built-in kinds only) or a server-side apply (`{apply, fieldManager, force}`).
   */
  async patch(id: Identifier, patch: Patch<T>, options: WriteOptions = {}): Promise<T> {
    const query: Record<string, string | number | boolean | undefined> = { ...writeQuery(options) };
    let body: unknown;
    let contentType: string;
    if ('operations' in patch) {
      body = patch.operations;
      contentType = JSON_PATCH;
    } else if ('merge' in patch) {
      body = patch.merge;
      contentType = MERGE_PATCH;
    } else if ('strategic' in patch) {
      body = patch.strategic;
      contentType = STRATEGIC_MERGE_PATCH;
    } else {
      // JSON is valid YAML, so apply needs no YAML encoder.
      body = patch.apply;
      contentType = APPLY_PATCH;
      query.fieldManager = patch.fieldManager;
      query.force = patch.force ? true : undefined;
    }
    const path = this.#objectPath(id, options.subresource);
    const res = await this.#call({ method: 'PATCH', path, query, body: JSON.stringify(body), contentType }, options);
    return this.#decodeObject(res);
  }

  /**
   * Merge-patches the `status` subresource with a deep partial status (`null` deletes a field, arrays such as
   * `conditions` are replaced whole): controller-runtime's `Status().Patch(ctx, obj, client.MergeFrom(...))`.
   * Needs the kind's `status` subresource; resolves with the whole object.
   */
  patchStatus(id: Identifier, status: MergePatch<StatusOf<T>>, options: Omit<WriteOptions, 'subresource'> = {}): Promise<T> {
    return this.patch(id, { merge: { status } as MergePatch<T> }, { ...options, subresource: 'status' });
  }

  /** Patches an object and replaces the contents of `into` with the result. */
  async patchInto(id: Identifier, patch: Patch<T>, options: WriteOptions, into: T): Promise<void> {
    const patched = await this.patch(id, patch, options);
    for (const key of Object.keys(into)) {
      if (!(key in patched)) delete into[key];
    }
    Object.assign(into, patched);
  }

  /**
   * Deletes an object. Resolves with the object when the server returns it (deletion pending on finalizers,
   * or a server that always returns the object), with `undefined` when it returns a `Status`.
   */
  async delete(id: Identifier, options: DeleteOptions = {}): Promise<T | undefined> {
    const body = JSON.stringify({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      preconditions: options.preconditions,
      propagationPolicy: options.propagationPolicy,
      gracePeriodSeconds: options.gracePeriodSeconds,
    });
    const res = await this.#call({ method: 'DELETE', path: this.#objectPath(id), body, contentType: 'application/json' }, options);
    if (res.body.trim() === '') return undefined;
    const value = this.#parseObject(res.body);
    if (value.kind === 'Status') return undefined;
    return this.#fill(value as T);
  }

  async #call(call: ApiCall, options: RequestOptions): Promise<TransportResponse> {
    const { method, path, query, body, contentType } = call;
    const once = async (): Promise<TransportResponse> => {
      const res = await this.#transport.request({ method, path, query, body, contentType, signal: options.signal, timeoutMs: options.timeoutMs });
      if (res.status < 200 || res.status >= 300) throw this.#explainNotServed(apiErrorFromResponse(res.status, res.headers, res.body), method, path);
      return res;
    };
    if (this.#retry === undefined) return once();
    // POST creates (a retry may create twice) and a JSON patch (may apply twice) are not idempotent.
    const idempotent = method !== 'POST' && contentType !== JSON_PATCH;
    return this.#retry.run(idempotent, options.signal, once);
  }

  /**
   * A 404 that names no object means the server does not serve this kind at all (a CRD not installed, a
   * wrong group or version): the error then says which request, which kind, and what to check.
   */
  #explainNotServed(error: unknown, method: HttpMethod, path: string): unknown {
    if (!isApiError(error) || error.status !== 404 || error.details?.name) return error;
    const { kind, group, version, plural } = this.kind;
    const hint = group ? `is the CustomResourceDefinition ${plural}.${group} installed and serving ${version}?` : `does this API server serve ${kind}?`;
    return new ApiError({
      status: error.status,
      reason: error.reason,
      message: `${method} ${path}: ${error.message} (${kind} ${this.kind.apiVersion} is not served: ${hint})`,
      details: error.details,
      retryAfterSeconds: error.retryAfterSeconds,
      body: error.body,
      cause: error,
    });
  }

  #namespaceOf(namespace: string | undefined): string {
    if (!this.#namespaced) return '';
    if (!namespace) throw new KubeloopError('InvalidArgument', `${this.kind.kind} is namespaced: a namespace is required`);
    return namespace;
  }

  #objectPath(id: Identifier, subresource?: string): string {
    if (!id.name) throw new KubeloopError('InvalidArgument', `${this.kind.kind}: a name is required`);
    return this.#paths.object(this.#namespaceOf(id.namespace), id.name, subresource);
  }

  #parseObject(text: string): Record<string, unknown> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      throw new CodecError(`${this.kind.kind}: response is not JSON: ${(cause as Error).message}`, { cause, input: text });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new CodecError(`${this.kind.kind}: response is not a JSON object`, { input: text });
    }
    return value as Record<string, unknown>;
  }

  #fill(obj: T): T {
    if (obj.apiVersion === undefined) obj.apiVersion = this.kind.apiVersion;
    if (obj.kind === undefined) obj.kind = this.kind.kind;
    return obj;
  }

  #decodeObject(res: TransportResponse): T {
    const value = this.#parseObject(res.body);
    if (typeof value.metadata !== 'object' || value.metadata === null) {
      throw new CodecError(`${this.kind.kind}: response object has no metadata`, { input: res.body });
    }
    return this.#fill(value as T);
  }

  #decodeList(res: TransportResponse): ListObject<T> {
    const list = this.#parseObject(res.body) as Partial<ListObject<T>> & { items?: T[] | null };
    const items = list.items ?? [];
    if (!Array.isArray(items)) throw new CodecError(`${this.kind.kind}List: items is not an array`, { input: res.body });
    // client-node's informer complaint: servers omit apiVersion/kind on list items.
    const { apiVersion, kind } = this.kind;
    for (const item of items) {
      if (typeof item !== 'object' || item === null) {
        throw new CodecError(`${this.kind.kind}List: an item is not an object`, { input: res.body });
      }
      if (item.apiVersion === undefined) item.apiVersion = apiVersion;
      if (item.kind === undefined) item.kind = kind;
    }
    return {
      apiVersion: list.apiVersion ?? apiVersion,
      kind: list.kind ?? `${kind}List`,
      metadata: list.metadata ?? {},
      items,
    };
  }
}

/**
 * A client for one kind over a new {@link HttpTransport} for a kubeconfig. Clients of several kinds should
 * share one transport instead: `new Client(kind, transport)`.
 */
export function createClient<T extends KubeObject>(kind: Kind<T>, kubeConfig: KubeConfig, options?: HttpTransportOptions & ClientOptions): Client<T> {
  return new Client(kind, HttpTransport.fromKubeConfig(kubeConfig, options), { retry: options?.retry });
}

function identifierOfObject(obj: KubeObject): Identifier {
  return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name };
}

/** The query of a list request. */
export function listQuery(options: ListOptions): QueryParams {
  return {
    labelSelector: options.labelSelector || undefined,
    fieldSelector: options.fieldSelector || undefined,
    limit: options.limit,
    continue: options.continue || undefined,
    resourceVersion: options.resourceVersion || undefined,
    resourceVersionMatch: options.resourceVersionMatch,
    shardSelector: shardSelectorText(options.shardSelector),
  };
}

/** The `shardSelector` parameter: the selector's wire text, or the text as given; undefined when empty. */
function shardSelectorText(selector: ShardSelector | string | undefined): string | undefined {
  if (selector === undefined) return undefined;
  return String(selector) || undefined;
}

/** The query of a watch request: bookmarks on unless turned off, `resourceVersionMatch=NotOlderThan` with `sendInitialEvents`. */
export function watchQuery(options: WatchOptions): QueryParams {
  return {
    watch: 'true',
    resourceVersion: options.resourceVersion || undefined,
    allowWatchBookmarks: options.allowWatchBookmarks ?? true,
    timeoutSeconds: options.timeoutSeconds,
    labelSelector: options.labelSelector || undefined,
    fieldSelector: options.fieldSelector || undefined,
    sendInitialEvents: options.sendInitialEvents ? true : undefined,
    resourceVersionMatch: options.sendInitialEvents ? 'NotOlderThan' : undefined,
    shardSelector: shardSelectorText(options.shardSelector),
  };
}

function writeQuery(options: WriteOptions): QueryParams {
  return { fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined, fieldValidation: options.fieldValidation };
}
