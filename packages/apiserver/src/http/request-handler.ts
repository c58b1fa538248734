/**
 * The HTTP front of the server: routes each request, applies injected faults, calls the
 * {@link ObjectService} and writes JSON (errors as `Status` bodies with `application/json`,
 * which client-node requires).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { StoredObject } from '../storage/change-event.js';
import { jsonAtApiVersion } from '../storage/change-event.js';
import { browserRequestProblem } from './browser-guard.js';
import type { AllowedHosts } from './browser-guard.js';
import { namespaceType } from '../types/builtin-resources.js';
import { coreVersions, groupInfo, groupList, resourceList, versionInfo } from './discovery.js';
import { containerSubresourceError, isContainerSubresource } from './container-subresources.js';
import type { FaultInjector, FaultVerb } from './faults.js';
import { jsonListPieces, sendJsonPieces, sendJsonText } from './json-pieces.js';
import { parseListOptions } from './list-options.js';
import type { ListFeatures } from './list-options.js';
import type { CollectionTarget, ObjectTarget } from '../objects/object-context.js';
import type { ObjectService } from '../objects/object-service.js';
import { runPatch } from '../objects/patch-object.js';
import type { ListPage } from '../objects/read-objects.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { OpenApiDocuments } from './openapi.js';
import { AbortedRequests, isClientAbort } from './aborted-requests.js';
import { decodeObjectBody, mediaTypeOf, readBody } from './request-body.js';
import { jsonOffLoopThresholdChars } from './request-body-parser.js';
import type { RequestBodyParser } from './request-body-parser.js';
import { queryBool } from './query-bool.js';
import { deleteRequestOf, writeOptionsOf } from './request-options.js';
import { parseRoute } from './request-route.js';
import { patchScale } from '../objects/scale-subresource.js';
import type { ResourceRoute } from './request-route.js';
import type { ResourceRegistry } from '../types/resource-registry.js';
import { apiVersionOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { StatusError, forbiddenRequest, internalError, methodNotAllowed, pathNotFound, tooManyRequests } from './status-error.js';
import { singleObjectTableJson, tableFormat, tableHead, tableRowJson } from '../table/table-encoding.js';
import { tableRequestOf } from '../table/table-request.js';
import { partialMetadataRequestOf, partialObjectMetadataJson, partialObjectMetadataListHead } from '../objects/partial-object-metadata.js';
import type { TableRequest } from '../table/table-request.js';
import type { WatchHub } from '../watch/watch-hub.js';
import { serveWatch } from '../watch/watch-request.js';
import { largeBodyChars } from '../objects/write-options.js';

/** What the handler works with. */
export interface RequestHandlerDeps {
  readonly registry: ResourceRegistry;
  readonly store: ObjectStore;
  readonly hub: WatchHub;
  readonly service: ObjectService;
  readonly openapi: OpenApiDocuments;
  readonly faults: FaultInjector;
  readonly maxBodyBytes: number;
  /** Parses YAML bodies, large ones off the event loop. */
  readonly bodyParser: RequestBodyParser;
  /** Watches open at once; a watch request past it is 429. */
  readonly maxWatches: number;
  /** The host names requests may be addressed to (see `browser-guard.ts`). */
  readonly allowedHosts: AllowedHosts;
  /** The scheme the server is reached by (`https` with `tls`): a same-origin `Origin` header carries it. */
  readonly scheme: 'http' | 'https';
  /** `host:port` for `/api`'s serverAddressByClientCIDRs. */
  readonly serverAddress: () => string;
  readonly logger: (line: string) => void;
  /** Whether `shardSelector` (KEP-5866) is read (see `ApiServerOptions.shardedListAndWatch`). */
  readonly listFeatures: ListFeatures;
}

/** `items` mapped by `fn` one at a time, as they are taken. */
function* mapLazily<T>(items: Iterable<T>, fn: (item: T) => string): Generator<string> {
  for (const item of items) yield fn(item);
}

/** A `Status` body as kube-apiserver's JSON encoder writes it: ending in a newline (clients compare the whole text). */
export function statusBody(status: object): string {
  return `${JSON.stringify(status)}\n`;
}

function sendStatusError(res: ServerResponse, err: StatusError): void {
  const headers: Record<string, string> = {};
  if (err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
  sendJsonText(res, err.status.code, statusBody(err.status), headers);
}

function warningHeaders(warnings: readonly string[]): Record<string, string[]> | undefined {
  if (warnings.length === 0) return undefined;
  return { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) };
}

/** Whether `type` has the named subresource. */
function servesSubresource(type: ResourceType, subresource: string): boolean {
  if (subresource === 'status') return type.statusSubresource;
  if (subresource === 'scale') return type.scale !== undefined;
  return subresource === 'finalize' && type === namespaceType;
}

/** Handles one HTTP request. */
export class RequestHandler {
  readonly #deps: RequestHandlerDeps;
  /** Watch requests refused because `maxWatches` were open. */
  refusedWatches = 0;
  /** Requests whose clients went away before their body was read (counted, logged rate-limited). */
  readonly aborted: AbortedRequests;

  constructor(deps: RequestHandlerDeps) {
    this.#deps = deps;
    this.aborted = new AbortedRequests(deps.logger);
  }

  /** The `http.Server` request listener. Never rejects: every failure becomes a response. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    this.#handle(req, res).catch((err: unknown) => {
      if (isClientAbort(err, req)) {
        this.aborted.note(`${req.method ?? ''} ${req.url ?? ''}`);
        res.destroy();
        return;
      }
      if (!(err instanceof StatusError)) this.#deps.logger(`kubeloop-apiserver: ${req.method ?? ''} ${req.url ?? ''} failed: ${String((err as Error)?.stack ?? err)}`);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendStatusError(res, err instanceof StatusError ? err : internalError(String((err as Error)?.message ?? err)));
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = browserRequestProblem(req.headers, this.#deps.allowedHosts, this.#deps.scheme);
    if (refused !== undefined) throw forbiddenRequest(refused);
    const latency = this.#deps.faults.latencyMs;
    if (latency > 0) await delay(latency);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const params = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    const route = parseRoute(path);
    const { registry } = this.#deps;
    const method = req.method ?? 'GET';
    if (route.kind !== 'resource' && method !== 'GET') {
      if (route.kind === 'notFound') throw pathNotFound();
      throw methodNotAllowed();
    }
    switch (route.kind) {
      case 'version':
        return sendJsonText(res, 200, JSON.stringify(versionInfo));
      case 'health':
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        return void res.end('ok');
      case 'coreVersions':
        return sendJsonText(res, 200, JSON.stringify(coreVersions(this.#deps.serverAddress())));
      case 'groupList':
        return sendJsonText(res, 200, JSON.stringify(groupList(registry)));
      case 'group': {
        const doc = groupInfo(registry, route.group);
        if (!doc) throw pathNotFound();
        return sendJsonText(res, 200, JSON.stringify(doc));
      }
      case 'resourceList': {
        const doc = resourceList(registry, route.group, route.version);
        if (!doc) throw pathNotFound();
        return sendJsonText(res, 200, JSON.stringify(doc));
      }
      case 'openapiRoot':
        return sendJsonText(res, 200, this.#deps.openapi.root());
      case 'openapiV2':
        return sendJsonText(res, 200, this.#deps.openapi.v2());
      case 'openapiDocument': {
        const doc = this.#deps.openapi.document(route.key);
        if (!doc) throw pathNotFound();
        const immutable = params.get('hash') === doc.hash;
        return sendJsonText(res, 200, doc.body, { Etag: `"${doc.hash}"`, 'Cache-Control': immutable ? 'public, immutable' : 'no-cache, private' });
      }
      case 'resource':
        return this.#resource(req, res, route, params);
      case 'notFound':
        throw pathNotFound();
    }
  }

  async #resource(req: IncomingMessage, res: ServerResponse, route: ResourceRoute, params: URLSearchParams): Promise<void> {
    const { registry, service, faults } = this.#deps;
    const type = registry.find(route.group, route.version, route.plural);
    if (!type) throw pathNotFound();
    if (route.namespace !== undefined && !type.namespaced) throw pathNotFound();
    if (route.subresource !== undefined && route.name !== undefined && isContainerSubresource(type, route.subresource)) {
      req.resume();
      service.get(type, route.namespace, route.name);
      throw containerSubresourceError(type, route.subresource, req.method ?? 'GET', route.name);
    }
    if (route.subresource !== undefined && !servesSubresource(type, route.subresource)) throw pathNotFound();
    // A namespaced object is addressed with its namespace; only collections may omit it.
    if (type.namespaced && route.namespace === undefined && route.name !== undefined) throw pathNotFound();
    const version = route.version;
    const namespace = route.namespace;
    const name = route.name;
    const collection: CollectionTarget = { type, version, namespace };
    const subresource = route.subresource === 'status' ? 'status' : undefined;
    if (route.subresource === 'scale' || route.subresource === 'finalize') return this.#otherSubresource(req, res, { ...collection, name: name as string }, route.subresource, params);
    const method = req.method ?? 'GET';
    const watch = route.legacyWatch || queryBool(params, 'watch') === true;

    let verb: FaultVerb;
    if (method === 'GET') verb = name === undefined ? (watch ? 'watch' : 'list') : 'get';
    else if (method === 'POST' && name === undefined && (namespace !== undefined || !type.namespaced)) verb = 'create';
    else if (method === 'PUT' && name !== undefined) verb = 'update';
    else if (method === 'PATCH' && name !== undefined) verb = 'patch';
    else if (method === 'DELETE' && (name !== undefined || namespace !== undefined || !type.namespaced) && subresource === undefined) verb = 'delete';
    else throw methodNotAllowed();
    if (route.legacyWatch && verb !== 'watch' && verb !== 'get') throw methodNotAllowed();

    const failure = faults.takeFailure(verb, type.plural);
    if (failure) {
      // The request body still has to be read for the client to see the answer.
      req.resume();
      throw failure;
    }

    const write = writeOptionsOf(req, params);
    const findDuplicates = write.fieldValidation !== 'Ignore';
    switch (verb) {
      case 'get': {
        if (route.legacyWatch) throw methodNotAllowed();
        const metadata = partialMetadataRequestOf(req.headers.accept, 'get');
        const stored = service.get(type, namespace, name as string);
        if (metadata) return sendJsonText(res, 200, partialObjectMetadataJson(metadata, stored.object));
        const table = tableRequestOf(req.headers.accept, params);
        if (!table) return sendJsonText(res, 200, this.#objectJson(type, version, stored));
        const format = tableFormat(table, type.tablePrinter(version));
        return sendJsonText(res, 200, singleObjectTableJson(format, stored.object, () => this.#objectJson(type, version, stored), true, Date.now()));
      }
      case 'list': {
        const opts = parseListOptions(type, params, this.#deps.listFeatures);
        const metadata = partialMetadataRequestOf(req.headers.accept, 'list');
        const table = metadata ? undefined : tableRequestOf(req.headers.accept, params);
        // The page is chosen now (a consistent snapshot of immutable objects); its JSON is made as the client reads.
        const page = service.listPage(type, namespace, opts);
        if (metadata) {
          const items = mapLazily(page.items, (stored) => partialObjectMetadataJson(metadata, stored.object));
          return sendJsonPieces(res, 200, jsonListPieces(partialObjectMetadataListHead(metadata, page.metadata), items, ']}'));
        }
        if (table) return sendJsonPieces(res, 200, this.#listTable(type, version, page, table));
        const apiVersion = apiVersionOf(type, version);
        const head = `{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(page.metadata)},"items":[`;
        return sendJsonPieces(res, 200, jsonListPieces(head, mapLazily(page.items, (stored) => jsonAtApiVersion(stored, apiVersion)), ']}'));
      }
      case 'watch': {
        if (this.#deps.hub.size >= this.#deps.maxWatches) {
          this.refusedWatches++;
          throw tooManyRequests(`the server serves at most ${this.#deps.maxWatches} watches at once`);
        }
        const metadata = partialMetadataRequestOf(req.headers.accept, 'watch');
        const table = metadata ? undefined : tableRequestOf(req.headers.accept, params);
        const opts = parseListOptions(type, params, this.#deps.listFeatures);
        serveWatch(this.#deps, collection, { options: { ...opts, watch: true }, table, metadata }, res);
        return;
      }
      case 'create': {
        const raw = await readBody(req, this.#deps.maxBodyBytes);
        const body = await decodeObjectBody(raw, mediaTypeOf(req), type.kind, findDuplicates, this.#deps.bodyParser);
        const result = await service.create(collection, body.value, { ...write, duplicateFields: body.duplicateFields, stepwise: raw.length >= largeBodyChars });
        return sendJsonText(res, 201, this.#objectJson(type, version, result.stored), warningHeaders(result.warnings));
      }
      case 'update': {
        const raw = await readBody(req, this.#deps.maxBodyBytes);
        const body = await decodeObjectBody(raw, mediaTypeOf(req), type.kind, findDuplicates, this.#deps.bodyParser);
        const result = await service.update({ ...collection, name: name as string }, body.value, { ...write, duplicateFields: body.duplicateFields, subresource, stepwise: raw.length >= largeBodyChars });
        return sendJsonText(res, result.created ? 201 : 200, this.#objectJson(type, version, result.stored), warningHeaders(result.warnings));
      }
      case 'patch': {
        const text = (await readBody(req, this.#deps.maxBodyBytes)).toString('utf8');
        const mediaType = mediaTypeOf(req);
        const result = await service.patch({ ...collection, name: name as string }, text, mediaType, {
          ...write,
          // Parsed here, off the event loop when large: an apply body as YAML, any other as JSON (its repeated keys found).
          ...(mediaType === 'application/apply-patch+yaml'
            ? { parsedApplyBody: await this.#deps.bodyParser.parseYaml(text) }
            : text.length >= jsonOffLoopThresholdChars && { parsedJsonBody: await this.#deps.bodyParser.parseJson(text, true) }),
          subresource,
          force: queryBool(params, 'force'),
        });
        return sendJsonText(res, result.created ? 201 : 200, this.#objectJson(type, version, result.stored), warningHeaders(result.warnings));
      }
      case 'delete':
        return this.#delete(req, res, { ...collection, name }, params, write.dryRun);
    }
  }

  /** DELETE of one object (`target.name`) or of a collection. */
  async #delete(req: IncomingMessage, res: ServerResponse, target: CollectionTarget & { readonly name: string | undefined }, params: URLSearchParams, dryRunQuery: boolean): Promise<void> {
    const { type, version, name } = target;
    const request = deleteRequestOf(await readBody(req, this.#deps.maxBodyBytes), mediaTypeOf(req), params, dryRunQuery);
    const { service } = this.#deps;
    if (name === undefined) {
      const opts = parseListOptions(type, params, this.#deps.listFeatures);
      return sendJsonText(res, 200, await service.deleteCollection(target, opts, { dryRun: request.dryRun, propagationPolicy: request.propagationPolicy, gracePeriodSeconds: request.gracePeriodSeconds }));
    }
    const result = await service.delete({ ...target, name }, request);
    if (!result.deleted || type.returnsDeletedObject) return sendJsonText(res, 200, this.#objectJson(type, version, result.stored));
    const details: Record<string, unknown> = { name };
    if (type.group) details.group = type.group;
    details.kind = type.plural;
    details.uid = result.stored.object.metadata.uid;
    return sendJsonText(res, 200, statusBody({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }));
  }

  /** `/scale` (GET, PUT, PATCH) and a namespace's `/finalize` (PUT). */
  async #otherSubresource(req: IncomingMessage, res: ServerResponse, target: ObjectTarget, subresource: 'scale' | 'finalize', params: URLSearchParams): Promise<void> {
    const { type, version, namespace, name } = target;
    const { service } = this.#deps;
    const method = req.method ?? 'GET';
    const write = writeOptionsOf(req, params);
    if (subresource === 'finalize') {
      if (method !== 'PUT') throw methodNotAllowed();
      const body = await decodeObjectBody(await readBody(req, this.#deps.maxBodyBytes), mediaTypeOf(req), type.kind, write.fieldValidation !== 'Ignore', this.#deps.bodyParser);
      const result = await service.update(target, body.value, { ...write, duplicateFields: body.duplicateFields, subresource: 'finalize' });
      return sendJsonText(res, 200, this.#objectJson(type, version, result.stored));
    }
    if (method === 'GET') return sendJsonText(res, 200, JSON.stringify(service.getScale(type, namespace, name)));
    if (method === 'PUT') {
      const body = await decodeObjectBody(await readBody(req, this.#deps.maxBodyBytes), mediaTypeOf(req), 'Scale', false, this.#deps.bodyParser);
      return sendJsonText(res, 200, JSON.stringify(await service.updateScale(target, () => body.value, write)));
    }
    if (method === 'PATCH') {
      const text = (await readBody(req, this.#deps.maxBodyBytes)).toString('utf8');
      const mediaType = mediaTypeOf(req);
      const scale = await service.updateScale(target, (current) => runPatch(() => patchScale(current, text, mediaType)), write);
      return sendJsonText(res, 200, JSON.stringify(scale));
    }
    throw methodNotAllowed();
  }

  /** A list page as a Table (one row per object, the list's metadata), in pieces made as they are sent. */
  #listTable(type: ResourceType, version: string, page: ListPage, table: TableRequest): Iterable<string> {
    const printer = type.tablePrinter(version);
    const now = Date.now();
    const rows = mapLazily(page.items, (stored) => tableRowJson(printer, stored.object, () => this.#objectJson(type, version, stored), table, now));
    return jsonListPieces(tableHead(table, printer.columnDefinitions, page.metadata), rows, ']}');
  }

  #objectJson(type: ResourceType, version: string, stored: StoredObject): string {
    return jsonAtApiVersion(stored, apiVersionOf(type, version));
  }
}
