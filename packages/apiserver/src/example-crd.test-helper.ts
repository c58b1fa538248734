/** The small CRDs the API server's tests register: one group, one version, only `spec` typed. */

/** The names of an {@link exampleCrd}; `singular` is left out of the CRD when not given (the server derives it). */
export interface ExampleCrdNames {
  readonly plural: string;
  readonly kind: string;
  readonly singular?: string;
}

/**
 * A namespaced CRD `<plural>.example.com` with one served and stored version `v1` whose schema
 * types `spec` as an object with `specProperties` and the keywords of `specSchema` (`required`...).
 * Default of `specSchema`: none.
 */
export function exampleCrd(names: ExampleCrdNames, specProperties: Record<string, unknown>, specSchema: Record<string, unknown> = {}): Record<string, unknown> {
  const { plural, kind, singular } = names;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: singular === undefined ? { plural, kind } : { plural, singular, kind },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: specProperties, ...specSchema } } } },
        },
      ],
    },
  };
}
