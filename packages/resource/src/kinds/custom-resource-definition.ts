/** The `apiextensions.k8s.io/v1` CustomResourceDefinition kind, and the kind a CRD defines. */
import { defineKindFor } from '../define-kind.js';
import type { Kind } from '../kind.js';
import type { KubeObject } from '../object.js';

/** The names of a custom resource. */
export interface CustomResourceDefinitionNames {
  /** URL plural, lower case; the CRD's name is `<plural>.<group>`. */
  plural: string;
  /** Default: the kind in lower case. */
  singular?: string;
  kind: string;
  /** Default: `<kind>List`. */
  listKind?: string;
  shortNames?: string[];
  /** Groups of resources for `kubectl get <category>` (e.g. `all`). */
  categories?: string[];
}

/** A CEL validation rule (`x-kubernetes-validations`). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate' | (string & {});
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** The OpenAPI v3 schema subset of a structural CRD schema, with the Kubernetes extensions. */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | (string & {});
  format?: string;
  title?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: boolean | JSONSchemaProps;
  patternProperties?: Record<string, JSONSchemaProps>;
  required?: string[];
  items?: JSONSchemaProps | JSONSchemaProps[];
  enum?: unknown[];
  default?: unknown;
  example?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** `versions[].schema`. */
export interface CustomResourceValidation {
  openAPIV3Schema?: JSONSchemaProps;
}

/** The scale subresource: where `kubectl scale` reads and writes replicas. */
export interface CustomResourceSubresourceScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** `versions[].subresources`. `status: {}` enables the `/status` subresource. */
export interface CustomResourceSubresources {
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

/** An extra column of `kubectl get`. */
export interface CustomResourceColumnDefinition {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date' | (string & {});
  format?: string;
  description?: string;
  /** 0 shows in the default view; higher only with `-o wide`. */
  priority?: number;
  /** JSONPath into the object, e.g. `.spec.title`. */
  jsonPath: string;
}

/** A field that may be used in field selectors (`jsonPath` e.g. `.spec.color`). */
export interface SelectableField {
  jsonPath: string;
}

/** One version of a custom resource. Exactly one version has `storage: true`. */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: CustomResourceValidation;
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: SelectableField[];
}

/** How objects convert between versions. */
export interface CustomResourceConversion {
  strategy: 'None' | 'Webhook';
  webhook?: {
    clientConfig?: {
      url?: string;
      service?: { namespace: string; name: string; path?: string; port?: number };
      caBundle?: string;
    };
    conversionReviewVersions: string[];
  };
}

/** `CustomResourceDefinition.spec`. */
export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

/** A condition of a CRD: `Established`, `NamesAccepted`, `NonStructuralSchema`, `Terminating`... */
export interface CustomResourceDefinitionCondition {
  type: 'Established' | 'NamesAccepted' | 'NonStructuralSchema' | 'Terminating' | 'KubernetesAPIApprovalPolicyConformant' | (string & {});
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** `CustomResourceDefinition.status`. */
export interface CustomResourceDefinitionStatus {
  conditions?: CustomResourceDefinitionCondition[];
  /** The names actually served (they may differ from `spec.names` while a name conflicts). */
  acceptedNames?: CustomResourceDefinitionNames;
  /** Every version ever used for storage. */
  storedVersions?: string[];
}

/** A CustomResourceDefinition object. Its name is `<spec.names.plural>.<spec.group>`. */
export type CustomResourceDefinition = KubeObject<CustomResourceDefinitionSpec, CustomResourceDefinitionStatus>;

/** `apiextensions.k8s.io/v1` CustomResourceDefinition: cluster-scoped, short names `crd`, `crds`. */
export const CustomResourceDefinitionKind = defineKindFor<CustomResourceDefinition>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
  shortNames: ['crd', 'crds'],
});

/** Options of {@link kindFromCustomResourceDefinition}. */
export interface KindFromCrdOptions {
  /** The version the kind is for. Default: the storage version (else the first served one). */
  readonly version?: string | undefined;
}

/**
 * The kind a CRD defines, for one of its versions: what a generic client or the API server
 * needs to serve or address the custom resource.
 * @throws TypeError when the CRD has no spec, no such version, or invalid names.
 */
export function kindFromCustomResourceDefinition<T extends KubeObject = KubeObject>(
  crd: CustomResourceDefinition,
  options?: KindFromCrdOptions,
): Kind<T> {
  const spec = crd.spec;
  if (!spec) throw new TypeError(`CustomResourceDefinition ${crd.metadata.name} has no spec`);
  const versions = spec.versions ?? [];
  const version = options?.version
    ? versions.find((v) => v.name === options.version)
    : (versions.find((v) => v.storage) ?? versions.find((v) => v.served));
  if (!version) {
    throw new TypeError(`CustomResourceDefinition ${crd.metadata.name} has no version ${options?.version ?? '(storage or served)'}`);
  }
  return defineKindFor<T>({
    group: spec.group,
    version: version.name,
    kind: spec.names.kind,
    plural: spec.names.plural,
    singular: spec.names.singular,
    scope: spec.scope,
    shortNames: spec.names.shortNames,
  });
}
