/**
 * A resource type the server serves: its names (for URLs, discovery and messages), its scope,
 * and the few rules in which kinds differ (generation, status subresource, how a body is decoded
 * and validated). Built-in kinds and CRD-defined kinds are both described by one of these.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { NameRule } from '../objects/name-validation.js';
import type { FieldProblem } from '../http/status-error.js';
import type { TablePrinter } from '../table/table-printer.js';

/** How a write asks unknown fields to be handled (`fieldValidation` query parameter). */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** What a decode hook may report besides throwing. */
export interface DecodeResult {
  /** Dotted paths of fields that were dropped because the kind does not know them. */
  readonly unknownFields: readonly string[];
}

/** A resource type served by the API server. */
export interface ResourceType {
  /** API group; '' for core. */
  readonly group: string;
  /** Served versions, the preferred (and storage) version first. */
  readonly versions: readonly string[];
  /** The version objects are stored in. */
  readonly storageVersion: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly string[];
  /** The `/status` subresource exists: the main resource ignores status, `/status` writes only status. */
  readonly statusSubresource: boolean;
  /** `metadata.generation` is maintained (custom resources, CRDs). */
  readonly hasGeneration: boolean;
  /** Defined by a CRD: no strategic merge patch, updates must carry a resourceVersion, deletes return the object. */
  readonly custom: boolean;
  /** An update (PUT) without `metadata.resourceVersion` is accepted (built-ins) rather than 422 (custom resources, CRDs). */
  readonly allowUnconditionalUpdate: boolean;
  /** Which rule object names follow: DNS subdomain (most kinds) or DNS label (namespaces). */
  readonly nameRule: NameRule;
  /** Deletes answer the deleted object rather than a `Status`. */
  readonly returnsDeletedObject: boolean;
  /** Field selector labels besides `metadata.name` and `metadata.namespace`. */
  readonly extraSelectableFields: readonly string[];
  /** How objects are printed as a Table at a served version (`kubectl get`'s columns). */
  tablePrinter(version: string): TablePrinter;
  /**
   * Checks the shape of a body and drops fields the kind does not know, in place.
   * Throws a StatusError (400 for undecodable bodies). Default: accept anything.
   */
  decode?(obj: KubeObject, version: string): DecodeResult;
  /** Kind-specific validation of a new object (and of an update, given the old one). */
  validate?(obj: KubeObject, old: KubeObject | undefined, version: string): FieldProblem[];
  /**
   * Sets, in place, the defaults a stored object lacks (a CRD schema default added after the
   * object was written), as the real server defaults objects when it reads them. Default: none.
   */
  defaultOnRead?(obj: KubeObject, version: string): void;
  /** Server-set fields on create (status of a CRD, phase of a namespace...). */
  prepareCreate?(obj: KubeObject): void;
  /** Server-set fields on update. */
  prepareUpdate?(obj: KubeObject, old: KubeObject): void;
  /** The OpenAPI v3 schema of the kind at a version (for `/openapi/v3`). */
  openApiSchema(version: string): Record<string, unknown>;
  /** Schemas the kind's schema refers to (`#/components/schemas/NAME`), by name. Default: none. */
  openApiComponents?(version: string): Record<string, unknown>;
  /** The `/scale` subresource, when the kind has one. */
  readonly scale?: ScaleSubresource;
}

/** Where a kind keeps what its `/scale` subresource (an autoscaling/v1 Scale) reads and writes. */
export interface ScaleSubresource {
  /** Dotted path of the desired replicas (`spec.replicas`). */
  readonly specReplicasPath: string;
  /** Dotted path of the observed replicas (`status.replicas`). */
  readonly statusReplicasPath: string;
  /** The label selector text the Scale reports in `status.selector` ('' when none). */
  selector(obj: KubeObject): string;
}

/** One printer column (CRD `additionalPrinterColumns`). */
export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
  readonly format?: string;
}

/** `group/version`, or `version` for core. */
export function apiVersionOf(type: { group: string }, version: string): string {
  return type.group ? `${type.group}/${version}` : version;
}

/** The key under which a type's objects are stored: `group/plural`. Versions share one store. */
export function storeKeyOf(type: { group: string; plural: string }): string {
  return `${type.group}/${type.plural}`;
}

/** The verbs of an ordinary resource. */
export const allVerbs: readonly string[] = Object.freeze(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);

/** How a built-in kind is named and scoped. */
export interface BuiltinTypeNames {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** Default: none. */
  readonly shortNames?: readonly string[] | undefined;
  /** Default: none. */
  readonly categories?: readonly string[] | undefined;
}

/** The fields every built-in type shares: one version, its names, every verb, updates without a resourceVersion allowed. */
export function builtinTypeFields(names: BuiltinTypeNames): Pick<
  ResourceType,
  'group' | 'versions' | 'storageVersion' | 'kind' | 'listKind' | 'plural' | 'singular' | 'namespaced' | 'shortNames' | 'categories' | 'verbs' | 'custom' | 'allowUnconditionalUpdate'
> {
  return {
    group: names.group,
    versions: [names.version],
    storageVersion: names.version,
    kind: names.kind,
    listKind: `${names.kind}List`,
    plural: names.plural,
    singular: names.kind.toLowerCase(),
    namespaced: names.namespaced,
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    verbs: allVerbs,
    custom: false,
    allowUnconditionalUpdate: true,
  };
}
