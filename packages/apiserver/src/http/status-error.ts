/**
 * Failures the API server answers with a Kubernetes `Status` body. Every handler throws a
 * {@link StatusError}; the HTTP layer turns it into the response. The messages and reasons are
 * the real kube-apiserver's, because clients (kubectl, client-node, our own) match on them.
 */
import { KubeloopError } from '@kubeloop/resource';
import type { Status, StatusCause, StatusDetails } from '@kubeloop/resource';

/** A request failure with the `Status` body to send. */
export class StatusError extends KubeloopError {
  /** The `Status` object sent as the response body. */
  readonly status: Status;
  /** Seconds for the `Retry-After` header, when set. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: Status, retryAfterSeconds?: number) {
    super('StatusError', status.message ?? status.reason ?? `HTTP ${status.code}`);
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** True for a {@link StatusError}. */
export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}

/** What names a resource in messages: `widgets.example.com`, or `configmaps` for the core group. */
export interface ResourceName {
  readonly group: string;
  readonly plural: string;
}

/** What names a kind in validation messages: `Widget.example.com`, or `ConfigMap` for the core group. */
export interface KindName {
  readonly group: string;
  readonly kind: string;
}

/** `widgets.example.com` / `configmaps`: the qualified resource as kube-apiserver prints it. */
export function qualifiedResource(r: ResourceName): string {
  return r.group ? `${r.plural}.${r.group}` : r.plural;
}

/** `Widget.example.com` / `ConfigMap`: the qualified kind as kube-apiserver prints it. */
export function qualifiedKind(k: KindName): string {
  return k.group ? `${k.kind}.${k.group}` : k.kind;
}

function status(code: number, reason: string, message: string, details?: StatusDetails): Status {
  // Field order as kube-apiserver writes it: details before code.
  return details ? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code } : { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

function resourceDetails(r: ResourceName, name: string): StatusDetails {
  const d: StatusDetails = { name };
  if (r.group) d.group = r.group;
  d.kind = r.plural;
  return d;
}

/** 404 `widgets.example.com "w1" not found`. */
export function notFound(r: ResourceName, name: string): StatusError {
  return new StatusError(status(404, 'NotFound', `${qualifiedResource(r)} "${name}" not found`, resourceDetails(r, name)));
}

/** 404 for a path that names no resource (kube-apiserver's plain `the server could not find the requested resource`). */
export function pathNotFound(): StatusError {
  return new StatusError(status(404, 'NotFound', 'the server could not find the requested resource', {}));
}

/** 409 AlreadyExists. */
export function alreadyExists(r: ResourceName, name: string): StatusError {
  return new StatusError(status(409, 'AlreadyExists', `${qualifiedResource(r)} "${name}" already exists`, resourceDetails(r, name)));
}

/** 409 Conflict with the given detail, e.g. the stale-resourceVersion message. */
export function conflict(r: ResourceName, name: string, detail: string): StatusError {
  return new StatusError(status(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(r)} "${name}": ${detail}`, resourceDetails(r, name)));
}

/** The detail of a 409 for a stale resourceVersion. */
export const objectModifiedDetail = 'the object has been modified; please apply your changes to the latest version and try again';

/** 409 for a write carrying a stale resourceVersion. */
export function staleConflict(r: ResourceName, name: string): StatusError {
  return conflict(r, name, objectModifiedDetail);
}

/** One field problem of a 422 (the cause and the `field: message` text). */
export interface FieldProblem {
  /** `FieldValueInvalid`, `FieldValueRequired`, `FieldValueForbidden`, `FieldValueNotSupported`... */
  readonly reason: string;
  /** The message without the field, e.g. `Invalid value: "x": must be ...` or `Required value`. */
  readonly message: string;
  /** The JSON path, e.g. `spec.replicas`. */
  readonly field: string;
}

/**
 * The most causes a `Status` lists, and the most field errors or apply conflicts its message quotes;
 * the message says how many more were left out. kubeloop's own bound (kube-apiserver lists them
 * all): an input with 50,000 errors must not be answered with a body many times its own size.
 */
export const maxStatusCauses = 100;

/** ` (N more errors left out)`, or nothing. */
export function leftOutText(count: number, what: string): string {
  return count > 0 ? ` (${count} more ${what} left out)` : '';
}

/**
 * 422 Invalid: `Widget.example.com "w1" is invalid: spec.replicas: Invalid value: ...`, with
 * `details.causes`. Identical `field: message` texts are quoted once, as kube-apiserver's aggregate
 * of field errors does; at most {@link maxStatusCauses} problems are listed.
 */
export function invalid(k: KindName, name: string, problems: readonly FieldProblem[]): StatusError {
  const listed = problems.slice(0, maxStatusCauses);
  const leftOut = problems.length - listed.length;
  const texts = [...new Set(listed.map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)))];
  const joined = (texts.length === 1 && leftOut === 0 ? (texts[0] ?? '') : `[${texts.join(', ')}]`) + leftOutText(leftOut, 'errors');
  const causes: StatusCause[] = listed.map((p) => ({ reason: p.reason, message: p.message, field: p.field }));
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (k.group) details.group = k.group;
  details.kind = k.kind;
  details.causes = causes;
  return new StatusError(status(422, 'Invalid', `${qualifiedKind(k)} "${name}" is invalid: ${joined}`, details));
}

/** Quotes a value the way Go's `%#v`-ish field errors do (strings quoted, the rest as JSON). */
export function formatFieldValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'null';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? '[]interface {}{...}' : 'map[string]interface {}{...}';
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : 'null';
}

/** A `FieldValueInvalid` problem. */
export function invalidValue(field: string, value: unknown, detail: string): FieldProblem {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${formatFieldValue(value)}: ${detail}`, field };
}

/** A `FieldValueRequired` problem. */
export function requiredValue(field: string, detail?: string): FieldProblem {
  return { reason: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value', field };
}

/** A `FieldValueForbidden` problem. */
export function forbiddenValue(field: string, detail: string): FieldProblem {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

/** A `FieldValueNotSupported` problem. */
export function unsupportedValue(field: string, value: unknown, supported: readonly string[]): FieldProblem {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${formatFieldValue(value)}: supported values: ${list}`, field };
}

/** 409 of a server-side apply changing fields other managers own (causes of type FieldManagerConflict, at most {@link maxStatusCauses}). */
export function applyConflict(err: { message: string; conflicts: readonly { manager: string; field: string }[] }): StatusError {
  const causes: StatusCause[] = err.conflicts.slice(0, maxStatusCauses).map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.manager}`, field: c.field }));
  return new StatusError(status(409, 'Conflict', err.message, { causes }));
}

/** 401 Unauthorized: a request without the server's bearer token. */
export function unauthorized(): StatusError {
  return new StatusError(status(401, 'Unauthorized', 'Unauthorized'));
}

/** 400 BadRequest. */
export function badRequest(message: string): StatusError {
  return new StatusError(status(400, 'BadRequest', message));
}

/** 403 Forbidden: `configmaps "x" is forbidden: <detail>`. */
export function forbidden(r: ResourceName, name: string, detail: string): StatusError {
  return new StatusError(status(403, 'Forbidden', `${qualifiedResource(r)} "${name}" is forbidden: ${detail}`, resourceDetails(r, name)));
}

/** 403 for a request refused as a whole (not for one object): a web page's, or an unexpected Host. */
export function forbiddenRequest(message: string): StatusError {
  return new StatusError(status(403, 'Forbidden', message, {}));
}

/** 501 NotImplemented: a request the embedded server understands but cannot serve (a Pod's `exec`, which needs a running container). */
export function notImplemented(r: ResourceName, name: string, message: string): StatusError {
  return new StatusError(status(501, 'NotImplemented', message, resourceDetails(r, name)));
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(): StatusError {
  return new StatusError(status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
}

/** 406 NotAcceptable: the Accept header asks for a form this read cannot have. */
export function notAcceptable(message: string): StatusError {
  return new StatusError(status(406, 'NotAcceptable', message));
}

/** 410 Expired, as in a watch `ERROR` event or a list with a too-old continue token. */
export function expired(message: string): StatusError {
  return new StatusError(status(410, 'Expired', message));
}

/** 410 Expired for a watch resuming before the kept history. */
export function tooOldResourceVersion(requested: number, oldest: number): StatusError {
  return expired(`too old resource version: ${requested} (${oldest})`);
}

/** 413 RequestEntityTooLarge. */
export function entityTooLarge(limit: number): StatusError {
  return new StatusError(status(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`));
}

/** 415 UnsupportedMediaType listing the accepted media types. */
export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return new StatusError(
    status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`),
  );
}

/** 504 for a read asking for a resourceVersion the server has not reached yet. */
export function resourceVersionTooLarge(requested: number, current: number): StatusError {
  return new StatusError(
    status(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    }),
  );
}

/**
 * 429 TooManyRequests with `Retry-After: 1`, as kube-apiserver answers past `--max-requests-inflight`
 * (client-go waits and retries). `what` names the cap that was reached.
 */
export function tooManyRequests(what: string): StatusError {
  return new StatusError(status(429, 'TooManyRequests', 'Too many requests, please try again later.', { causes: [{ message: what }], retryAfterSeconds: 1 }), 1);
}

/** 500 InternalError wrapping an unexpected failure. */
export function internalError(message: string): StatusError {
  return new StatusError(status(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }));
}

/** A Status for an injected fault (any code), with the conventional reason. */
export function faultStatus(code: number, reason: string, message: string, retryAfterSeconds?: number): StatusError {
  const details: StatusDetails | undefined = retryAfterSeconds !== undefined ? { retryAfterSeconds } : undefined;
  return new StatusError(status(code, reason, message, details), retryAfterSeconds);
}
