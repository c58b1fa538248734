// @kubeloop/resource public API. Named exports only; types exported with `export type`.

// --- object model ---
export type {
  KubeObject,
  ObjectMeta,
  OwnerReference,
  ManagedFieldsEntry,
  ListObject,
  ListMeta,
  StaticMetadata,
  Identifier,
} from './object.js';
export {
  objectKey,
  identifierKey,
  parseObjectKey,
  identifierOf,
  parseApiVersion,
  formatApiVersion,
  staticMetadataOf,
} from './object.js';

// --- errors ---
export type { Status, StatusCause, StatusDetails, StatusReason } from './errors.js';
export {
  KubeloopError,
  ApiError,
  NetworkError,
  CodecError,
  SelectorError,
  reasonForHttpStatus,
  isKubeloopError,
  isApiError,
  isNotFound,
  isConflict,
  isAlreadyExists,
  isGone,
  isExpired,
  isInvalid,
  isBadRequest,
  isTooManyRequests,
  isUnauthorized,
  isForbidden,
  isServerError,
  isNetworkError,
  isCodecError,
  isSelectorError,
} from './errors.js';

// --- kinds, codecs, selectors (owned by the resource-core work) ---
export type { Schema, Kind, Scope } from './kind.js';

// --- client and watch (owned by the resource-client work) ---
export type {
  RequestOptions,
  ListOptions,
  WatchOptions,
  WatchEventType,
  WatchEvent,
  WatchResponse,
  PatchOperation,
  PatchRequest,
  MergePatchRequest,
  StrategicMergePatchRequest,
  ApplyPatchRequest,
  Patch,
  WriteOptions,
  DeleteOptions,
} from './client/types.js';
