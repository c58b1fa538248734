/** The CRD of a kind schema: one served and stored version, the status subresource, Ready and Age columns. */
import type { CustomResourceDefinition, JSONSchemaProps } from '@kubeloop/resource';
import type { KindSchema } from './kind-schema.js';

/** The schema of one Kubernetes condition (metav1.Condition), so the generated type is `setCondition`'s. */
export const CONDITION_SCHEMA: JSONSchemaProps = {
  type: 'object',
  required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  properties: {
    type: { type: 'string', description: 'CamelCase type, e.g. Ready. Unique within the list.' },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    observedGeneration: { type: 'integer', format: 'int64', description: 'The metadata.generation the condition was set for.' },
    lastTransitionTime: { type: 'string', format: 'date-time', description: 'When status last changed.' },
    reason: { type: 'string', description: 'CamelCase, programmatic reason of the last transition.' },
    message: { type: 'string', description: 'Human-readable details.' },
  },
};

/** A status with conditions only: the default of a kind schema without `status`. */
export const CONDITIONS_STATUS: JSONSchemaProps = {
  type: 'object',
  properties: {
    conditions: { type: 'array', items: CONDITION_SCHEMA, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
  },
};

export function crdFromKindSchema(schema: KindSchema): CustomResourceDefinition {
  const { group, version, kind, plural, scope, shortNames } = schema;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, ...(shortNames.length > 0 ? { shortNames: [...shortNames] } : {}) },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: schema.spec, status: schema.status ?? CONDITIONS_STATUS } } },
        },
      ],
    },
  };
}
