/**
 * A CustomResourceDefinition for the operator's integration tests: one served and stored version, a
 * status subresource, the given schemas. `test/src/support/crd.ts` is its twin for the cross-package
 * tests, which cannot import a package's test helpers.
 */
import type { CustomResourceDefinition, JSONSchemaProps } from '@kubeloop/resource';

/** What {@link testCrd} needs; the plural is the lower-case kind + `s`. */
export interface TestCrdOptions {
  group: string;
  kind: string;
  /** `properties` of `spec`. Default: none. */
  spec?: Record<string, JSONSchemaProps>;
  /** `properties` of `status`. Default: none. */
  status?: Record<string, JSONSchemaProps>;
}

export function testCrd(options: TestCrdOptions): CustomResourceDefinition {
  const plural = `${options.kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${options.group}` },
    spec: {
      group: options.group,
      scope: 'Namespaced',
      names: { plural, singular: options.kind.toLowerCase(), kind: options.kind },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: options.spec ?? {} }, status: { type: 'object', properties: options.status ?? {} } },
            },
          },
        },
      ],
    },
  };
}
