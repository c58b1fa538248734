/**
 * The Kubernetes object model: the shapes every other kubeloop package reads and writes.
 * Field names and optionality follow the Kubernetes API exactly so that objects round-trip
 * through JSON unchanged.
 */

/** A reference from an object to the object that owns it (garbage collection, `kubectl tree`). */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** One entry of `metadata.managedFields` (server-side apply bookkeeping). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update' | (string & {});
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** `metadata` of a persisted object. Timestamps are RFC 3339 strings, as on the wire. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  generateName?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  managedFields?: ManagedFieldsEntry[];
}

/**
 * A Kubernetes object. `Spec` and `Status` are the kind's own types; built-in kinds without a
 * spec (ConfigMap, Secret) carry their top-level fields through the index signature.
 */
export interface KubeObject<Spec = unknown, Status = unknown> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Spec;
  status?: Status;
  [field: string]: unknown;
}

/** `metadata` of a list response. */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  /** KEP-5866: the shard selector the server applied (absent: the list is not sharded, whatever was asked). */
  shardInfo?: { selector: string };
}

/** A list response: `items` is always an array (never null) after decoding. */
export interface ListObject<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

/** The identity of an object within a cluster, without its contents. */
export interface StaticMetadata {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
}

/** Namespace and name: what identifies an object of a known kind. `namespace` is '' when cluster-scoped. */
export interface Identifier {
  namespace: string;
  name: string;
}

/** The store key of an object: `namespace/name`, or `name` for cluster-scoped objects (client-go's convention). */
export function objectKey(obj: { metadata: { name: string; namespace?: string | undefined } }): string {
  const ns = obj.metadata.namespace;
  return ns ? `${ns}/${obj.metadata.name}` : obj.metadata.name;
}

/** The store key of an identifier; the same format as {@link objectKey}. */
export function identifierKey(id: Identifier): string {
  return id.namespace ? `${id.namespace}/${id.name}` : id.name;
}

/** Splits a store key back into namespace and name. */
export function parseObjectKey(key: string): Identifier {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The identifier of an object. */
export function identifierOf(obj: KubeObject): Identifier {
  return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name };
}

/** Splits an `apiVersion` into group and version (`v1` is the core group, ''). */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** Joins group and version into an `apiVersion`. */
export function formatApiVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** The static metadata of an object, read from its apiVersion, kind and metadata. */
export function staticMetadataOf(obj: KubeObject): StaticMetadata {
  const { group, version } = parseApiVersion(obj.apiVersion);
  return { group, version, kind: obj.kind, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name };
}
