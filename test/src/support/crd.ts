/** A CustomResourceDefinition for tests: one served and stored version, a status subresource, the given schemas. */
import type { CustomResourceDefinition, JSONSchemaProps } from '@kubeloop/resource';

/** What {@link testCrd} needs; the plural is the lower-case kind + `s`. */
export interface TestCrdOptions {
  group: string;
  kind: string;
  /** Default `v1`. */
  version?: string;
  /** `properties` of `spec`. Default: none. */
  spec?: Record<string, JSONSchemaProps>;
  /** `required` of `spec`. Default: none. */
  specRequired?: string[];
  /** `properties` of `status`. Default: none. */
  status?: Record<string, JSONSchemaProps>;
  /** Default: none. */
  labels?: Record<string, string>;
  /** Default: none. */
  additionalPrinterColumns?: { name: string; type: string; jsonPath: string }[];
}

export function testCrd(options: TestCrdOptions): CustomResourceDefinition {
  const plural = `${options.kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${options.group}`, ...(options.labels ? { labels: options.labels } : {}) },
    spec: {
      group: options.group,
      scope: 'Namespaced',
      names: { plural, singular: options.kind.toLowerCase(), kind: options.kind },
      versions: [
        {
          name: options.version ?? 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          ...(options.additionalPrinterColumns ? { additionalPrinterColumns: options.additionalPrinterColumns } : {}),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', ...(options.specRequired ? { required: options.specRequired } : {}), properties: options.spec ?? {} },
                status: { type: 'object', properties: options.status ?? {} },
              },
            },
          },
        },
      ],
    },
  };
}
