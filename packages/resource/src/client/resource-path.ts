import type { Schema } from '../kind.js';

/**
 * Builds the URL paths of one kind: `/api/v1/...` for the core group, `/apis/{group}/{version}/...` otherwise,
 * with `/namespaces/{namespace}` for namespaced kinds. Segments are percent-encoded. A cluster-scoped kind
 * ignores the namespace; a namespaced kind with namespace '' addresses all namespaces (lists and watches).
 */
export class ResourcePath {
  readonly #prefix: string;
  readonly #plural: string;
  readonly #namespaced: boolean;

  constructor(schema: Schema) {
    this.#prefix = schema.group === '' ? `/api/${schema.version}` : `/apis/${schema.group}/${schema.version}`;
    this.#plural = encodeURIComponent(schema.plural);
    this.#namespaced = schema.scope === 'Namespaced';
  }

  /** The collection: `.../namespaces/{ns}/{plural}`, or `.../{plural}` across namespaces or for cluster kinds. */
  collection(namespace: string): string {
    return this.#namespaced && namespace !== ''
      ? `${this.#prefix}/namespaces/${encodeURIComponent(namespace)}/${this.#plural}`
      : `${this.#prefix}/${this.#plural}`;
  }

  /** One object, optionally one of its subresources (`status`, `scale`...). */
  object(namespace: string, name: string, subresource?: string): string {
    const path = `${this.collection(namespace)}/${encodeURIComponent(name)}`;
    return subresource ? `${path}/${encodeURIComponent(subresource)}` : path;
  }
}
