/**
 * Typed errors. Every kubeloop error extends {@link KubeloopError} and carries a stable string
 * `code`; the guards check `name`/`code` rather than `instanceof` so that they keep working when
 * two copies of this package are installed side by side.
 */

/** Base class of every kubeloop error. */
export class KubeloopError extends Error {
  /** A stable, machine-readable code, e.g. `ApiError`, `CodecError`, `SelectorError`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = code;
  }
}

/** A cause in `Status.details.causes` (field validation failures). */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** `Status.details`. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** The Kubernetes `Status` object returned for failures (and by some deletes). */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason | (string & {});
  details?: StatusDetails;
  code: number;
}

/** The `reason` values of the Kubernetes API that kubeloop tells apart. */
export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'TooManyRequests'
  | 'Unauthorized'
  | 'Forbidden'
  | 'Timeout'
  | 'ServerTimeout'
  | 'InternalError'
  | 'ServiceUnavailable';

/** An error answered by the API server, built from its `Status` body (or from the HTTP status alone). */
export class ApiError extends KubeloopError {
  /** HTTP status code (404, 409, 410, 422, 429, 500...). */
  readonly status: number;
  /** `Status.reason`, or one derived from the HTTP status when the body was not a Status. */
  readonly reason: string;
  /** `Status.details`, when present. */
  readonly details: StatusDetails | undefined;
  /** Seconds to wait before retrying, from `Retry-After` or `details.retryAfterSeconds`. */
  readonly retryAfterSeconds: number | undefined;
  /** The decoded `Status` body, when the server sent one. */
  readonly body: Status | undefined;

  constructor(init: {
    status: number;
    reason?: string | undefined;
    message?: string | undefined;
    details?: StatusDetails | undefined;
    retryAfterSeconds?: number | undefined;
    body?: Status | undefined;
    cause?: unknown;
  }) {
    const reason = init.reason || reasonForHttpStatus(init.status);
    super('ApiError', init.message || `${init.status} ${reason}`, { cause: init.cause });
    this.status = init.status;
    this.reason = reason;
    this.details = init.details;
    this.retryAfterSeconds = init.retryAfterSeconds ?? init.details?.retryAfterSeconds;
    this.body = init.body;
  }

  /** Builds an error from a `Status` object (a response body or the object of a watch `ERROR` event). */
  static fromStatus(status: Partial<Status>, httpStatus?: number, retryAfterHeader?: string | null): ApiError {
    const code = typeof status.code === 'number' && status.code > 0 ? status.code : (httpStatus ?? 500);
    const headerSeconds = retryAfterHeader != null && retryAfterHeader !== '' ? Number(retryAfterHeader) : undefined;
    return new ApiError({
      status: code,
      reason: status.reason,
      message: status.message,
      details: status.details,
      retryAfterSeconds: headerSeconds !== undefined && Number.isFinite(headerSeconds) ? headerSeconds : undefined,
      body: status.kind === 'Status' ? (status as Status) : undefined,
    });
  }
}

/** The request never got an HTTP answer: connection refused or reset, DNS, TLS, timeout, abort. */
export class NetworkError extends KubeloopError {
  /** The system error code when known (`ECONNREFUSED`, `ECONNRESET`, `ETIMEDOUT`, `ABORT_ERR`...). */
  readonly errno: string | undefined;

  constructor(message: string, options?: { cause?: unknown; errno?: string | undefined }) {
    super('NetworkError', message, { cause: options?.cause });
    this.errno = options?.errno;
  }
}

/** A body or watch line that could not be decoded into an object. */
export class CodecError extends KubeloopError {
  /** The offending input, cut to at most 200 characters for logs. */
  readonly input: string | undefined;

  constructor(message: string, options?: { cause?: unknown; input?: string | undefined }) {
    super('CodecError', message, { cause: options?.cause });
    this.input = options?.input === undefined ? undefined : options.input.slice(0, 200);
  }
}

/** A label or field selector that could not be parsed. */
export class SelectorError extends KubeloopError {
  /** The offending token. */
  readonly token: string;
  /** The whole selector text. */
  readonly selector: string;

  constructor(message: string, selector: string, token: string) {
    super('SelectorError', message);
    this.selector = selector;
    this.token = token;
  }
}

/** Where the path of a kubeconfig came from, as {@link KubeconfigError} reports it. */
export type KubeconfigSource = 'option' | 'KUBECONFIG' | 'default';

/**
 * A kubeconfig that could not be used: missing, unreadable, not YAML, or without a cluster for its
 * current context. The message names the file and where its path came from.
 */
export class KubeconfigError extends KubeloopError {
  /** The file (for KUBECONFIG, the one that failed). */
  readonly path: string;
  /** How the path was chosen: an explicit option (`--kubeconfig`), the `KUBECONFIG` variable, or the default `~/.kube/config`. */
  readonly source: KubeconfigSource;

  constructor(message: string, options: { path: string; source: KubeconfigSource; cause?: unknown }) {
    super('KubeconfigError', message, { cause: options.cause });
    this.path = options.path;
    this.source = options.source;
  }
}

const reasonByHttpStatus: Record<number, StatusReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The conventional `Status.reason` for an HTTP status code. */
export function reasonForHttpStatus(status: number): string {
  return reasonByHttpStatus[status] ?? (status >= 500 ? 'InternalError' : 'Unknown');
}

function isNamed(err: unknown, code: string): err is KubeloopError {
  return typeof err === 'object' && err !== null && ((err as { code?: unknown }).code === code || (err as { name?: unknown }).name === code);
}

/** True for any kubeloop error. */
export function isKubeloopError(err: unknown): err is KubeloopError {
  return typeof err === 'object' && err !== null && err instanceof Error && typeof (err as { code?: unknown }).code === 'string';
}

/** True for an {@link ApiError}, from this or another installed copy of the package. */
export function isApiError(err: unknown): err is ApiError {
  return isNamed(err, 'ApiError') && typeof (err as { status?: unknown }).status === 'number';
}

function hasStatus(err: unknown, status: number, reason?: string): boolean {
  return isApiError(err) && (err.status === status || (reason !== undefined && err.reason === reason));
}

/** 404 NotFound. */
export const isNotFound = (err: unknown): boolean => hasStatus(err, 404, 'NotFound');
/** 409 with reason Conflict (a stale resourceVersion or a failed precondition). */
export const isConflict = (err: unknown): boolean => isApiError(err) && err.status === 409 && err.reason !== 'AlreadyExists';
/** 409 with reason AlreadyExists. */
export const isAlreadyExists = (err: unknown): boolean => isApiError(err) && err.reason === 'AlreadyExists';
/** 410: the requested resourceVersion is older than the server's history (relist). */
export const isGone = (err: unknown): boolean => hasStatus(err, 410, 'Expired') || (isApiError(err) && err.reason === 'Gone');
/** Alias of {@link isGone}: the API reports 410 with reason `Expired`. */
export const isExpired = isGone;
/** 422 Invalid. */
export const isInvalid = (err: unknown): boolean => hasStatus(err, 422, 'Invalid');
/** 400 BadRequest. */
export const isBadRequest = (err: unknown): boolean => hasStatus(err, 400, 'BadRequest');
/** 429 TooManyRequests. */
export const isTooManyRequests = (err: unknown): boolean => hasStatus(err, 429, 'TooManyRequests');
/** 401 Unauthorized. */
export const isUnauthorized = (err: unknown): boolean => hasStatus(err, 401, 'Unauthorized');
/** 403 Forbidden. */
export const isForbidden = (err: unknown): boolean => hasStatus(err, 403, 'Forbidden');
/** Any 5xx. */
export const isServerError = (err: unknown): boolean => isApiError(err) && err.status >= 500;
/** A {@link NetworkError}. */
export const isNetworkError = (err: unknown): err is NetworkError => isNamed(err, 'NetworkError');
/** A {@link CodecError}. */
export const isCodecError = (err: unknown): err is CodecError => isNamed(err, 'CodecError');
/** A {@link SelectorError}. */
export const isSelectorError = (err: unknown): err is SelectorError => isNamed(err, 'SelectorError');
/** True for a {@link KubeconfigError}. */
export const isKubeconfigError = (err: unknown): err is KubeconfigError => isNamed(err, 'KubeconfigError');
