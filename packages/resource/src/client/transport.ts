import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import type { KubeConfig } from '@kubernetes/client-node';
import { ApiError, NetworkError, isNetworkError } from '../errors.js';
import { logWarningsOnce, parseWarningHeaders } from './api-warning.js';
import type { WarningHandler } from './api-warning.js';
import { httpTransportConfigFromKubeConfig } from './kube-config.js';

/** HTTP methods the Kubernetes API uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Query parameters; `undefined` values are left out, booleans and numbers are written as text. */
export type QueryParams = Readonly<Record<string, string | number | boolean | undefined>>;

/** Response headers, lower-case names (the shape of Node's `IncomingHttpHeaders`). */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** One request to the API server. */
export interface TransportRequest {
  method: HttpMethod;
  /** Path on the API server, already escaped, e.g. `/api/v1/namespaces/default/configmaps`. */
  path: string;
  /** Query parameters. Default: none. */
  query?: QueryParams | undefined;
  /** Request body (JSON or YAML text). Default: none. */
  body?: string | undefined;
  /** `Content-Type` of the body. Default: `application/json` when there is a body. */
  contentType?: string | undefined;
  /** Aborts the request with a `NetworkError` (errno `ABORT_ERR`). Default: none. */
  signal?: AbortSignal | undefined;
  /**
   * Fails the request with a `NetworkError` (errno `ETIMEDOUT`) after this many milliseconds; `0` disables it.
   * For `request()` it covers the whole exchange, for `stream()` only the wait for the response headers.
   * Default: the transport's `defaultTimeoutMs`.
   */
  timeoutMs?: number | undefined;
}

/** A complete response, whatever its status. */
export interface TransportResponse {
  status: number;
  headers: ResponseHeaders;
  /** The body decoded as UTF-8 ('' when empty). */
  body: string;
}

/** An open 2xx response whose body is still arriving (a watch). */
export interface TransportStream {
  status: number;
  headers: ResponseHeaders;
  /** The body bytes. Destroying it closes the connection. */
  body: Readable;
}

/**
 * How a {@link Client} talks to an API server. {@link HttpTransport} is the real one; tests may provide
 * their own.
 */
export interface Transport {
  /** Sends a request and reads the whole response. Rejects only with a `NetworkError`; any HTTP status resolves. */
  request(request: TransportRequest): Promise<TransportResponse>;
  /**
   * Sends a request and resolves as soon as the headers of a 2xx response arrive, with the body still streaming.
   * A non-2xx response is read whole and rejects with an `ApiError` (see {@link apiErrorFromResponse}).
   */
  stream(request: TransportRequest): Promise<TransportStream>;
}

/** Options of {@link HttpTransport}. */
export interface HttpTransportOptions {
  /** Timeout of a request that sets no `timeoutMs`, in milliseconds; `0` disables it. Default: 30000. */
  defaultTimeoutMs?: number | undefined;
  /** Most concurrent connections to the server (each open watch holds one). Default: 50. */
  maxSockets?: number | undefined;
  /** `User-Agent` header. Default: `kubeloop/0.1`. */
  userAgent?: string | undefined;
  /** Reuse connections between requests. Default: true. */
  keepAlive?: boolean | undefined;
  /**
   * Receives the API server's `Warning` headers (deprecations, unknown fields under `fieldValidation: 'Warn'`),
   * one call per warning. Default: `console.warn` once per distinct text (`logWarningsOnce()`).
   */
  warningHandler?: WarningHandler | undefined;
}

/** TLS material for an `https` server. */
export interface TransportTls {
  /** Certificate authorities to trust. Default: Node's bundled roots. */
  ca?: string | Buffer | undefined;
  /** Client certificate (PEM). */
  cert?: string | Buffer | undefined;
  /** Client key (PEM). */
  key?: string | Buffer | undefined;
  /** Verify the server certificate. Default: true. */
  rejectUnauthorized?: boolean | undefined;
  /** SNI and certificate name to expect. Default: the server's host name. */
  servername?: string | undefined;
}

/** What an authenticator may set before each request. */
export interface TransportCredentials {
  /** Request headers, e.g. `Authorization`. */
  headers: Record<string, string>;
  /** A client certificate obtained at request time (exec plugins). */
  cert?: string | Buffer | undefined;
  /** The key of `cert`. */
  key?: string | Buffer | undefined;
}

/** Everything {@link HttpTransport} needs; {@link HttpTransport.fromKubeConfig} builds it from a kubeconfig. */
export interface HttpTransportConfig extends HttpTransportOptions {
  /** Base URL of the API server, e.g. `https://10.0.0.1:6443` or `http://127.0.0.1:8080`; may end in a path prefix. */
  server: string;
  /** TLS settings, used for `https` servers. Default: none. */
  tls?: TransportTls | undefined;
  /** Headers sent with every request (e.g. `Impersonate-User`). Default: none. */
  headers?: Readonly<Record<string, string>> | undefined;
  /**
   * Called before every request to set credentials. It runs each time (not once) so that tokens refreshed by
   * exec plugins or rotated token files are picked up. Default: none.
   */
  authenticate?: ((credentials: TransportCredentials) => Promise<void> | void) | undefined;
  /** An agent to use instead of the transport's own (proxies). Default: a keep-alive agent built from the options. */
  agent?: http.Agent | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_SOCKETS = 50;
const DEFAULT_USER_AGENT = 'kubeloop/0.1';
/** TCP keep-alive probes on watch sockets, so that a dead peer is noticed by the kernel. */
const STREAM_KEEPALIVE_MS = 30_000;

/**
 * The {@link Transport} over Node's `http`/`https` modules with one keep-alive agent. Every request has a
 * timeout and honours an `AbortSignal`; failures below HTTP become {@link NetworkError}s.
 */
export class HttpTransport implements Transport {
  readonly #lib: typeof http | typeof https;
  readonly #agent: http.Agent;
  readonly #ownsAgent: boolean;
  readonly #hostname: string;
  readonly #port: number | undefined;
  readonly #basePath: string;
  readonly #baseHeaders: Readonly<Record<string, string>>;
  readonly #authenticate: HttpTransportConfig['authenticate'];
  readonly #defaultTimeoutMs: number;
  /** Whether the agent already carries a client certificate (agent options win over request options). */
  readonly #agentHasCert: boolean;
  readonly #warningHandler: WarningHandler;

  constructor(config: HttpTransportConfig) {
    const url = new URL(config.server);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`unsupported API server URL ${config.server}: expected http: or https:`);
    }
    const secure = url.protocol === 'https:';
    this.#lib = secure ? https : http;
    // URL keeps IPv6 literals bracketed; http.request wants them bare.
    this.#hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.#port = url.port === '' ? undefined : Number(url.port);
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#defaultTimeoutMs = config.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#authenticate = config.authenticate;
    this.#warningHandler = config.warningHandler ?? logWarningsOnce();
    this.#baseHeaders = {
      Accept: 'application/json',
      'User-Agent': config.userAgent ?? DEFAULT_USER_AGENT,
      ...config.headers,
    };
    const tls = secure ? compact({ ...config.tls }) : {};
    this.#agentHasCert = tls.cert !== undefined;
    if (config.agent) {
      this.#agent = config.agent;
      this.#ownsAgent = false;
    } else {
      const agentOptions = { keepAlive: config.keepAlive ?? true, maxSockets: config.maxSockets ?? DEFAULT_MAX_SOCKETS, ...tls };
      this.#agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
      this.#ownsAgent = true;
    }
  }

  /**
   * A transport for the current context of a `KubeConfig` (@kubernetes/client-node 1.4): server, TLS, client
   * certificates, tokens, token files, exec and auth-provider plugins, impersonation and proxies. Credentials
   * are asked of the `KubeConfig` before every request, so refreshed tokens are used. Like kubectl (and unlike
   * client-node), a plain `http://` server is accepted without `insecure-skip-tls-verify`.
   */
  static fromKubeConfig(kubeConfig: KubeConfig, options?: HttpTransportOptions): HttpTransport {
    return new HttpTransport(httpTransportConfigFromKubeConfig(kubeConfig, options));
  }

  /** Destroys the keep-alive agent and its idle connections (an agent passed in the config is left alone). */
  close(): void {
    if (this.#ownsAgent) this.#agent.destroy();
  }

  /** {@inheritDoc Transport.request} */
  request(request: TransportRequest): Promise<TransportResponse> {
    return this.#send(request, false) as Promise<TransportResponse>;
  }

  /** {@inheritDoc Transport.stream} */
  stream(request: TransportRequest): Promise<TransportStream> {
    return this.#send(request, true) as Promise<TransportStream>;
  }

  #send(request: TransportRequest, streaming: boolean): Promise<TransportResponse | TransportStream> {
    const { signal } = request;
    const what = `${request.method} ${request.path}`;
    if (signal?.aborted) return Promise.reject(abortError(what));
    return new Promise((resolve, reject) => {
      let settled = false;
      let clientRequest: http.ClientRequest | undefined;
      const timeoutMs = request.timeoutMs ?? this.#defaultTimeoutMs;
      const timer =
        timeoutMs > 0
          ? setTimeout(() => fail(new NetworkError(`${what}: timed out after ${timeoutMs} ms`, { errno: 'ETIMEDOUT' })), timeoutMs)
          : undefined;
      const onAbort = (): void => fail(abortError(what));
      signal?.addEventListener('abort', onAbort, { once: true });
      const finish = (): boolean => {
        if (settled) return false;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        return true;
      };
      function fail(err: unknown): void {
        if (!finish()) return;
        clientRequest?.destroy();
        reject(isNetworkError(err) ? err : toNetworkError(what, err));
      }

      const send = (options: https.RequestOptions, retried: boolean): void => {
        let answered = false;
        const req = this.#lib.request(options, (res) => {
          answered = true;
          const status = res.statusCode ?? 0;
          if (res.headers.warning !== undefined) this.#warn(res.headers.warning, what);
          if (streaming && status >= 200 && status < 300) {
            if (finish()) resolve({ status, headers: res.headers, body: res });
            else res.destroy();
            return;
          }
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', fail);
          res.on('close', () => {
            if (!res.complete) fail(new NetworkError(`${what}: connection closed before the response ended`, { errno: 'ECONNRESET' }));
          });
          res.on('end', () => {
            if (!finish()) return;
            const body = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
            if (streaming) reject(apiErrorFromResponse(status, res.headers, body));
            else resolve({ status, headers: res.headers, body });
          });
        });
        clientRequest = req;
        // Stays attached for the life of the request: a late socket error must never be unhandled.
        req.on('error', (err) => {
          // A kept-alive connection the server closed while idle fails at once; the server never saw the
          // request, so a GET is sent again once on a fresh connection.
          if (!retried && !answered && !settled && req.reusedSocket && request.method === 'GET' && isConnectionReset(err)) {
            send(options, true);
            return;
          }
          fail(err);
        });
        if (streaming) req.on('socket', (socket) => socket.setKeepAlive(true, STREAM_KEEPALIVE_MS));
        req.end(request.body);
      };
      this.#requestOptions(request).then((options) => {
        if (!settled) send(options, false);
      }, fail);
    });
  }

  #warn(header: string | string[], request: string): void {
    for (const warning of parseWarningHeaders(header, request)) {
      try {
        this.#warningHandler(warning);
      } catch {
        // A throwing handler must not fail the request it was told about.
      }
    }
  }

  async #requestOptions(request: TransportRequest): Promise<https.RequestOptions> {
    const headers: Record<string, string> = { ...this.#baseHeaders };
    if (request.body !== undefined) {
      headers['Content-Type'] = request.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(request.body));
    }
    const options: https.RequestOptions = {
      method: request.method,
      hostname: this.#hostname,
      port: this.#port,
      path: this.#basePath + request.path + formatQuery(request.query),
      agent: this.#agent,
      headers,
    };
    if (this.#authenticate) {
      const credentials: TransportCredentials = { headers };
      await this.#authenticate(credentials);
      if (!this.#agentHasCert && credentials.cert !== undefined && credentials.key !== undefined) {
        options.cert = credentials.cert;
        options.key = credentials.key;
      }
    }
    return options;
  }
}

/** Encodes query parameters as `?a=b&c=d`, or '' when there are none. */
export function formatQuery(query: QueryParams | undefined): string {
  if (query === undefined) return '';
  let out = '';
  for (const key in query) {
    const value = query[key];
    if (value === undefined) continue;
    out += `${out === '' ? '?' : '&'}${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`;
  }
  return out;
}

/**
 * The error for a non-2xx response: a `Status` body becomes `ApiError.fromStatus` (with `Retry-After`); any
 * other body an `ApiError` with the HTTP status and the first 200 characters of the body in its message.
 */
export function apiErrorFromResponse(status: number, headers: ResponseHeaders, body: string): ApiError {
  const retryAfter = headers['retry-after'];
  const retryAfterHeader = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null && (parsed as { kind?: unknown }).kind === 'Status') {
    return ApiError.fromStatus(parsed, status, retryAfterHeader);
  }
  const error = ApiError.fromStatus({}, status, retryAfterHeader);
  const snippet = body.length > 200 ? `${body.slice(0, 200)}…` : body;
  return new ApiError({
    status,
    message: snippet === '' ? `${status} ${error.reason}` : `${status} ${error.reason}: ${snippet}`,
    retryAfterSeconds: error.retryAfterSeconds,
  });
}

function isConnectionReset(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

function abortError(what: string): NetworkError {
  return new NetworkError(`${what}: aborted`, { errno: 'ABORT_ERR' });
}

function toNetworkError(what: string, err: unknown): NetworkError {
  const errno = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  return new NetworkError(`${what}: ${message}`, { cause: err, errno: typeof errno === 'string' ? errno : undefined });
}

/** Drops `undefined` entries: agent options override request options, even when undefined. */
function compact<T extends object>(value: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] !== undefined) out[key] = value[key];
  }
  return out;
}
