/**
 * The `patchStrategy`/`patchMergeKey` tags of the built-in types kubeloop serves, as the Go types
 * declare them. Strategic merge patch merges maps always, and lists only where a type says so;
 * every other list is replaced.
 */

import { builtinKinds } from '../builtin/builtin-kind-table.js';
import { modelStrategy } from '../builtin/model-schemas.js';

/** How strategic merge treats one field. */
export interface FieldStrategy {
  /** `patchStrategy:"merge"` on a list: merge items (by {@link mergeKey}, or as a set of primitives). */
  readonly mergeList?: { readonly mergeKey?: string };
  /** Strategies of the fields of this object (or of each item, for a list). */
  readonly fields?: Readonly<Record<string, FieldStrategy>>;
}

/** The strategy of one field; field names are user input (`constructor`, `__proto__`): own entries only. */
export function fieldStrategyOf(strategy: FieldStrategy | undefined, key: string): FieldStrategy | undefined {
  const fields = strategy?.fields;
  return fields !== undefined && Object.hasOwn(fields, key) ? fields[key] : undefined;
}

const objectMeta: FieldStrategy = {
  fields: {
    // ObjectMeta: `Finalizers []string patchStrategy:"merge"`; `OwnerReferences patchStrategy:"merge" patchMergeKey:"uid"`.
    finalizers: { mergeList: {} },
    ownerReferences: { mergeList: { mergeKey: 'uid' } },
  },
};

const withMetadataOnly: FieldStrategy = { fields: { metadata: objectMeta } };

const byGroupKind: ReadonlyMap<string, FieldStrategy> = new Map<string, FieldStrategy>([
  // NamespaceStatus: `Conditions []NamespaceCondition patchStrategy:"merge" patchMergeKey:"type"`.
  ['/Namespace', { fields: { metadata: objectMeta, status: { fields: { conditions: { mergeList: { mergeKey: 'type' } } } } } }],
  ['/ConfigMap', withMetadataOnly],
  ['/Secret', withMetadataOnly],
  ['/Event', withMetadataOnly],
  ['events.k8s.io/Event', withMetadataOnly],
  ['coordination.k8s.io/Lease', withMetadataOnly],
  // apiextensions types carry no patch strategies: their lists (versions, conditions) are replaced.
  ['apiextensions.k8s.io/CustomResourceDefinition', withMetadataOnly],
]);

/** The built-in kinds served from model data, by `group/Kind`. */
const modelKinds: ReadonlyMap<string, string> = new Map(builtinKinds.map((k) => [`${k.group}/${k.kind}`, k.model]));

/**
 * The strategy tree for an object of `apiVersion`/`kind`: the hand-written table above, else the
 * kind's model data (`builtin/model-schemas.ts`). Kinds without either get the
 * ObjectMeta strategies only (the server refuses strategic merge for custom resources before
 * getting here).
 */
export function strategyFor(apiVersion: unknown, kind: unknown): FieldStrategy {
  const group = typeof apiVersion === 'string' && apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const key = `${group}/${String(kind)}`;
  const model = modelKinds.get(key);
  return byGroupKind.get(key) ?? (model !== undefined ? modelStrategy(model) : withMetadataOnly);
}
