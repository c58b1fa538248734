/**
 * The options a request carries for its write or delete, from its query and (DeleteOptions) its
 * body: `dryRun`, `fieldValidation`, `fieldManager`, preconditions and the propagation policy.
 */
import type { IncomingMessage } from 'node:http';
import { propagationPolicyOf } from './delete-options.js';
import type { DeleteRequest } from '../objects/delete-object.js';
import type { WriteOptions } from '../objects/write-options.js';
import { decodeProtobufObject, protobufMediaType } from '../protobuf/protobuf-decoding.js';
import type { FieldValidation } from '../types/resource-type.js';
import { badRequest, invalid, unsupportedMediaType } from './status-error.js';

function fieldValidationOf(params: URLSearchParams): FieldValidation {
  const value = params.get('fieldValidation');
  if (value === 'Strict' || value === 'Ignore') return value;
  return 'Warn';
}

/** The options every write takes from its request. */
export function writeOptionsOf(req: IncomingMessage, params: URLSearchParams): WriteOptions {
  return { dryRun: dryRunOf(params, req.method ?? 'GET'), fieldValidation: fieldValidationOf(params), fieldManager: params.get('fieldManager') ?? undefined, userAgent: req.headers['user-agent'] };
}

const optionsKinds: Readonly<Record<string, string>> = { POST: 'CreateOptions', PUT: 'UpdateOptions', PATCH: 'PatchOptions', DELETE: 'DeleteOptions' };

/** `dryRun`: only `All` is valid (kube-apiserver's ValidateDryRun: 422 on the request's options kind); reads ignore it. */
function dryRunOf(params: URLSearchParams, method: string, fromBody: readonly unknown[] = []): boolean {
  const values = [...params.getAll('dryRun'), ...fromBody];
  const optionsKind = optionsKinds[method];
  if (optionsKind && values.some((v) => v !== 'All')) {
    const shown = `[]string{${values.map((v) => JSON.stringify(String(v))).join(', ')}}`;
    throw invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', [{ reason: 'FieldValueNotSupported', message: `Unsupported value: ${shown}: supported values: "All"`, field: 'dryRun' }]);
  }
  return values.includes('All');
}


/** A DeleteOptions body as sent (JSON or protobuf); fields are checked where they are used. */
interface DeleteOptionsBody {
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
  propagationPolicy?: unknown;
  orphanDependents?: unknown;
  gracePeriodSeconds?: unknown;
}

function deleteOptionsBody(body: Buffer, mediaType: string): DeleteOptionsBody {
  if (mediaType === protobufMediaType && body.length > 0) return decodeProtobufObject(body);
  const text = body.toString('utf8');
  if (text.trim() === '') return {};
  if (mediaType !== 'application/json' && mediaType !== '*/*') throw unsupportedMediaType(['application/json', protobufMediaType]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw badRequest(`the object provided is unrecognized (must be of type DeleteOptions): ${(err as Error).message}`);
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
}

/** A delete's options from its body and query (the query's preconditions win; `dryRunQuery` is the query's already-checked dryRun). */
export function deleteRequestOf(body: Buffer, mediaType: string, params: URLSearchParams, dryRunQuery: boolean): DeleteRequest {
  const options = deleteOptionsBody(body, mediaType);
  const preconditions = { uid: params.get('preconditions.uid') ?? options.preconditions?.uid, resourceVersion: params.get('preconditions.resourceVersion') ?? options.preconditions?.resourceVersion };
  const dryRun = dryRunQuery || dryRunOf(new URLSearchParams(), 'DELETE', Array.isArray(options.dryRun) ? options.dryRun : []);
  return { preconditions, dryRun, propagationPolicy: propagationPolicyOf(options, params), gracePeriodSeconds: gracePeriodOf(options, params) };
}

/**
 * `gracePeriodSeconds` from the body (which wins) or the query; undefined when absent. As
 * kube-apiserver, a negative value means 1 s. Only Pods on a simulated kubelet use it, so a value
 * that is not an integer is ignored rather than refused (the server without a simulation answers as before).
 */
function gracePeriodOf(body: DeleteOptionsBody, params: URLSearchParams): number | undefined {
  const value = body.gracePeriodSeconds ?? params.get('gracePeriodSeconds') ?? undefined;
  if (value === undefined || value === null) return undefined;
  const seconds = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds)) return undefined;
  return seconds < 0 ? 1 : seconds;
}
