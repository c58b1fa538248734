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

// --- status conditions and owner references (apimachinery meta, controllerutil) ---
export type { Condition, ConditionStatus, ConditionInput, ConditionHolder, SetConditionOptions } from './conditions.js';
export { setCondition, findCondition, removeCondition, isConditionTrue, isConditionFalse } from './conditions.js';
export type { Owner, OwnerReferenceOptions } from './owner-references.js';
export {
  OwnerReferenceError,
  ownerReferenceFor,
  setControllerReference,
  setOwnerReference,
  removeOwnerReference,
  controllerOf,
} from './owner-references.js';

// --- errors ---
export type { KubeconfigSource, Status, StatusCause, StatusDetails, StatusReason } from './errors.js';
export {
  KubeloopError,
  ApiError,
  NetworkError,
  CodecError,
  SelectorError,
  KubeconfigError,
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
  isKubeconfigError,
} from './errors.js';

// --- kinds, codecs, selectors (owned by the resource-core work) ---
export type { Schema, Kind, Scope } from './kind.js';
export type { Encoding, Codec, CodecOptions } from './codec.js';
export { JsonCodec, YamlCodec, decodeObject } from './codec.js';
export type { KindDefinition } from './define-kind.js';
export { defineKind, defineKindFor, defaultPlural } from './define-kind.js';
export { formatMicroTime, parseMicroTime, isMicroTime, formatTime, parseTime } from './micro-time.js';
export type { Namespace, NamespaceSpec, NamespaceStatus, NamespaceCondition } from './kinds/namespace.js';
export { NamespaceKind } from './kinds/namespace.js';
export type { ConfigMap } from './kinds/config-map.js';
export { ConfigMapKind } from './kinds/config-map.js';
export type { Secret } from './kinds/secret.js';
export { SecretKind } from './kinds/secret.js';
export type { Event, ObjectReference, EventSource, EventSeries } from './kinds/event.js';
export { EventKind } from './kinds/event.js';
export type { Lease, LeaseSpec } from './kinds/lease.js';
export { LeaseKind } from './kinds/lease.js';
export type {
  CustomResourceDefinition,
  CustomResourceDefinitionSpec,
  CustomResourceDefinitionStatus,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionVersion,
  CustomResourceDefinitionCondition,
  CustomResourceValidation,
  CustomResourceSubresources,
  CustomResourceSubresourceScale,
  CustomResourceColumnDefinition,
  CustomResourceConversion,
  SelectableField,
  JSONSchemaProps,
  ValidationRule,
  KindFromCrdOptions,
} from './kinds/custom-resource-definition.js';
export { CustomResourceDefinitionKind, kindFromCustomResourceDefinition } from './kinds/custom-resource-definition.js';
export { builtinKinds } from './kinds/builtin-kinds.js';
// Pod, Service, Deployment, Job, Role... and the API types they use (V1PodSpec, V1Container...): generated.
export * from './kinds/builtin-workloads.generated.js';
export type { LabelOperator, LabelRequirement, LabelSelectorObject } from './selector/label-selector.js';
export { LabelSelector, parseLabelSelector } from './selector/label-selector.js';
export type { FieldRequirement, FieldSelectorParseOptions } from './selector/field-selector.js';
export { FieldSelector, parseFieldSelector, escapeFieldValue, defaultSelectableFields } from './selector/field-selector.js';
export { qualifiedNameProblem, labelValueProblem, isValidLabelKey, isValidLabelValue } from './selector/label-validation.js';
export type { ShardField, ShardRange, ShardedObject } from './selector/shard-selector.js';
export { ShardSelector, shardRange, shardRanges, equalShardRange, splitShardSpace } from './selector/shard-selector.js';
export { shardHash, shardHashSpaceEnd, formatShardBound } from './selector/shard-hash.js';

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
  MergePatch,
  StatusOf,
  StrategicMergePatchRequest,
  ApplyPatchRequest,
  Patch,
  WriteOptions,
  DeleteOptions,
} from './client/types.js';
export { Client, createClient } from './client/client.js';
export type { ClientOptions } from './client/client.js';
export type { RequestRetryOptions } from './client/request-retry.js';
export { DEFAULT_REQUEST_RETRY } from './client/request-retry.js';
export type { RetryOnConflictOptions } from './client/retry-on-conflict.js';
export { retryOnConflict } from './client/retry-on-conflict.js';
export type { PartialObjectMetadata } from './client/metadata-client.js';
export { MetadataClient, PARTIAL_OBJECT_METADATA_ACCEPT, PARTIAL_OBJECT_METADATA_LIST_ACCEPT } from './client/metadata-client.js';
export { HttpTransport, apiErrorFromResponse, formatQuery } from './client/transport.js';
export type { ApiWarning, WarningHandler } from './client/api-warning.js';
export { parseWarningHeaders, logWarningsOnce } from './client/api-warning.js';
export type {
  Transport,
  TransportRequest,
  TransportResponse,
  TransportStream,
  TransportTls,
  TransportCredentials,
  HttpTransportOptions,
  HttpTransportConfig,
  HttpMethod,
  QueryParams,
  ResponseHeaders,
} from './client/transport.js';
export { loadKubeConfig, httpTransportConfigFromKubeConfig } from './client/kube-config.js';
export type { LoadKubeConfigOptions } from './client/kube-config.js';
export { ResourcePath } from './client/resource-path.js';
export { ensureCrd } from './client/ensure-crd.js';
export type { EnsureCrdOptions } from './client/ensure-crd.js';
export { WatchLineDecoder } from './watch/watch-line-decoder.js';
export type { WatchLineDecoderOptions } from './watch/watch-line-decoder.js';
export { StreamWatchResponse } from './watch/stream-watch-response.js';
export type { StreamWatchResponseOptions } from './watch/stream-watch-response.js';
export { compareResourceVersions, isComparableResourceVersion } from './resource-version.js';
export { RealClock, VirtualClock, flushMicrotasks, realClock } from './clock.js';
export type { Clock, Timer } from './clock.js';
