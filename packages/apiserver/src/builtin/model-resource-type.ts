/**
 * Builds the {@link ResourceType} of a built-in kind from its table row ({@link BuiltinKind}), its
 * generated model definition and its rules: decoding and required fields from the model, defaults
 * and checks from the rules, the OpenAPI schema from the model.
 */
import { decodeError } from '../types/builtin-decoding.js';
import { builtinTypeFields } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { customResourcePrinter } from '../table/table-printer.js';
import type { BuiltinKind } from './builtin-kind-table.js';
import { kindRulesOf } from './kind-rules.js';
import { decodeModelObject, requiredFieldProblems } from './model-decoding.js';
import { kindSchemas } from './model-schemas.js';

/** The served type of a built-in kind. */
export function modelResourceType(kind: BuiltinKind): ResourceType {
  const rules = kindRulesOf(kind.group, kind.kind);
  const printer = rules.printer ?? customResourcePrinter(undefined);
  let schemas: ReturnType<typeof kindSchemas> | undefined;
  const schemasOf = (): ReturnType<typeof kindSchemas> => (schemas ??= kindSchemas(kind.model, { group: kind.group, version: kind.version, kind: kind.kind }));
  const type: ResourceType = {
    ...builtinTypeFields(kind),
    statusSubresource: kind.status ?? false,
    hasGeneration: kind.generation ?? false,
    nameRule: 'subdomain',
    returnsDeletedObject: false,
    extraSelectableFields: kind.selectableFields ?? [],
    tablePrinter: () => printer,
    decode(obj, version) {
      const unknownFields: string[] = [];
      const problem = decodeModelObject(obj, kind.model, kind.kind, unknownFields);
      if (problem) throw decodeError(kind.kind, version, problem);
      return { unknownFields };
    },
    validate(obj, old) {
      return [...requiredFieldProblems(obj, kind.model), ...(rules.validate?.(obj, old) ?? [])];
    },
    openApiSchema: () => schemasOf().schema,
    openApiComponents: () => schemasOf().components,
  };
  if (rules.defaults) {
    const defaults = rules.defaults;
    type.prepareCreate = (obj) => defaults(obj, undefined);
    type.prepareUpdate = (obj, old) => defaults(obj, old);
  }
  if (kind.scale) {
    const selector = rules.scaleSelector ?? ((): string => '');
    return { ...type, scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: 'status.replicas', selector } };
  }
  return type;
}
