/**
 * The keywords kube-apiserver forbids in a CRD's `openAPIV3Schema` because they would make
 * validation expensive (apiextensions-apiserver's `ValidateCustomResourceDefinitionOpenAPISchema`):
 * `uniqueItems: true` is quadratic in the length of the list, and is refused wherever it appears,
 * with the real server's field paths (`properties[spec].properties[tags].uniqueItems`) and wording.
 * Lists of unique items are written `x-kubernetes-list-type: set` (checked in linear time here).
 */
import type { FieldCause } from './field-cause.js';
import { isRecord } from './structural-schema-converter.js';

const uniqueItemsMessage = 'Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic';

/** Every forbidden keyword in `schema`; `path` is the schema's own field path (e.g. `spec.versions[0].schema.openAPIV3Schema`). */
export function forbiddenSchemaKeywords(schema: unknown, path: string): FieldCause[] {
  const causes: FieldCause[] = [];
  // Iterative: a schema nested deep enough would overflow a recursive walk.
  const pending: { node: unknown; path: string }[] = [{ node: schema, path }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, path: at } = next;
    if (!isRecord(node)) continue;
    if (node['uniqueItems'] === true) causes.push({ reason: 'FieldValueForbidden', message: uniqueItemsMessage, field: `${at}.uniqueItems` });
    const properties = node['properties'];
    if (isRecord(properties)) for (const key of Object.keys(properties)) pending.push({ node: properties[key], path: `${at}.properties[${key}]` });
    const items = node['items'];
    if (Array.isArray(items)) items.forEach((item, i) => pending.push({ node: item, path: `${at}.items[${i}]` }));
    else pending.push({ node: items, path: `${at}.items` });
    pending.push({ node: node['additionalProperties'], path: `${at}.additionalProperties` });
    pending.push({ node: node['not'], path: `${at}.not` });
    for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = node[combinator];
      if (Array.isArray(list)) list.forEach((s, i) => pending.push({ node: s, path: `${at}.${combinator}[${i}]` }));
    }
  }
  // The real server sorts its schema errors; keep a stable order for clients and tests.
  return causes.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}
