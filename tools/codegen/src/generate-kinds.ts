/** `generateKindsSource()`: CustomResourceDefinitions in, one TypeScript module out. */
import { defineKindFor, formatApiVersion } from '@kubeloop/resource';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps } from '@kubeloop/resource';
import { CodegenError } from './codegen-error.js';
import { crdConstantName, crdConstantSource } from './crd-constant.js';
import { checkCustomResourceDefinition } from './crd-documents.js';
import { SchemaEmitter } from './schema-to-type.js';
import type { SchemaContext } from './schema-to-type.js';
import { docComment, pascalCase, stringLiteral } from './ts-syntax.js';

/** Options of {@link generateKindsSource}. */
export interface GenerateKindsOptions {
  /** Generate only this version of every CRD (each must serve it). Default: every served version. */
  readonly version?: string | undefined;
  /** The files the CRDs were read from, named in the header comment. Default: none named. */
  readonly sources?: readonly string[] | undefined;
  /** The file each CRD was read from, by index into the CRDs, to start error messages with. Default: none. */
  readonly origins?: readonly string[] | undefined;
}

/** Fields every object has; the generated object type gets them from `KubeObject`. */
const objectFields = new Set(['apiVersion', 'kind', 'metadata', 'spec', 'status']);

/** One kind at one version, with the names it declares. */
interface KindPlan {
  readonly crd: CustomResourceDefinition;
  readonly version: CustomResourceDefinitionVersion;
  /** `BackupSchedule`, or `BackupScheduleV1beta1` when the file holds several versions of the kind. */
  readonly base: string;
  readonly where: string;
}

function crdLabel(crd: unknown, index: number, origins: readonly string[] | undefined): string {
  const name = (crd as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  const origin = origins?.[index];
  return `${origin === undefined ? '' : `${origin}: `}CustomResourceDefinition ${typeof name === 'string' && name !== '' ? name : `#${index + 1}`}`;
}

function plan(crds: readonly CustomResourceDefinition[], options: GenerateKindsOptions): KindPlan[] {
  const plans: KindPlan[] = [];
  crds.forEach((unchecked, index) => {
    const label = crdLabel(unchecked, index, options.origins);
    const crd = checkCustomResourceDefinition(unchecked, label);
    const spec = crd.spec!;
    const served = spec.versions.filter((v) => v.served);
    const chosen = options.version === undefined ? served : served.filter((v) => v.name === options.version);
    if (chosen.length === 0) {
      const what = options.version === undefined ? 'any version' : `version ${options.version}`;
      throw new CodegenError(`${label} does not serve ${what} (served: ${served.map((v) => v.name).join(', ') || 'none'})`);
    }
    for (const version of chosen) {
      const where = `${label} version ${version.name}`;
      try {
        defineKindFor({ ...spec.names, group: spec.group, version: version.name, scope: spec.scope });
      } catch (err) {
        throw new CodegenError(`${where}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      plans.push({ crd, version, where, base: chosen.length > 1 ? `${spec.names.kind}${pascalCase(version.name)}` : spec.names.kind });
    }
  });
  const seen = new Map<string, string>();
  for (const p of plans) {
    const other = seen.get(p.base);
    if (other !== undefined) {
      throw new CodegenError(`${p.where} and ${other} both declare ${p.base}; generate them into separate files (--out <dir>)`);
    }
    seen.set(p.base, p.where);
  }
  return plans;
}

function emitKind(emitter: SchemaEmitter, { crd, version, base, where }: KindPlan): void {
  const spec = crd.spec!;
  const { kind, plural, singular, shortNames } = spec.names;
  const apiVersion = formatApiVersion(spec.group, version.name);
  const root = version.schema?.openAPIV3Schema;
  if (root === undefined) throw new CodegenError(`${where}: has no schema.openAPIV3Schema`);
  const context: SchemaContext = { where, owner: base };
  const properties: Record<string, JSONSchemaProps> = root.properties ?? {};
  const typeArgument = (field: 'spec' | 'status'): string => {
    const schema = properties[field];
    if (schema === undefined) return 'never';
    emitter.declareRoot(`${base}${pascalCase(field)}`, schema, context, field, `\`${field}\` of {@link ${base}}.`);
    return `${base}${pascalCase(field)}`;
  };
  const heritage = `KubeObject<${typeArgument('spec')}, ${typeArgument('status')}>`;

  const deprecated = version.deprecated ? `@deprecated ${version.deprecationWarning ?? `${apiVersion} ${kind} is deprecated.`}` : undefined;
  const objectDoc = docComment([root.description ?? `A ${kind} object (\`${apiVersion}\`).`, deprecated]);
  const extra = Object.keys(properties).filter((key) => !objectFields.has(key));
  if (extra.length > 0) {
    const schema: JSONSchemaProps = { type: 'object', properties: Object.fromEntries(extra.map((k) => [k, properties[k]!])), required: root.required ?? [] };
    emitter.declareInterface(base, schema, context, '', objectDoc, `extends ${heritage}`);
  } else {
    emitter.add([...objectDoc, `export type ${base} = ${heritage};`].join('\n'));
  }

  const facts = [
    spec.scope === 'Cluster' ? 'cluster-scoped' : 'namespaced',
    `plural \`${plural}\``,
    ...(shortNames?.length ? [`short names ${shortNames.map((s) => `\`${s}\``).join(', ')}`] : []),
  ];
  const fields = [
    `group: ${stringLiteral(spec.group)}`,
    `version: ${stringLiteral(version.name)}`,
    `kind: ${stringLiteral(kind)}`,
    `plural: ${stringLiteral(plural)}`,
    ...(singular !== undefined ? [`singular: ${stringLiteral(singular)}`] : []),
    `scope: ${stringLiteral(spec.scope)}`,
    ...(shortNames?.length ? [`shortNames: [${shortNames.map(stringLiteral).join(', ')}]`] : []),
  ];
  emitter.add(
    [
      ...docComment([`\`${apiVersion}\` ${kind}: ${facts.join(', ')}.`, deprecated]),
      `export const ${base}Kind = defineKindFor<${base}>({`,
      ...fields.map((f) => `  ${f},`),
      '});',
    ].join('\n'),
  );
}

/**
 * Generates one TypeScript module for `crds`: for every served version of every CRD, the
 * `<Kind>Spec` and `<Kind>Status` interfaces, `type <Kind> = KubeObject<Spec, Status>` and
 * `<Kind>Kind = defineKindFor<Kind>(...)`; for every CRD, `<Kind>Crd: CustomResourceDefinition`. When the module holds several versions of one kind,
 * their names carry the version (`BackupV1beta1Spec`). The output is deterministic: the same
 * input gives the same text.
 * @throws CodegenError for an invalid CRD, a version that is not served, two CRDs declaring
 *   the same names, or a schema construct without a TypeScript mapping.
 */
export function generateKindsSource(crds: readonly CustomResourceDefinition[], options: GenerateKindsOptions = {}): string {
  const plans = plan(crds, options);
  // Nested interfaces must not take a top-level name or the name of an import.
  const distinctCrds = [...new Set(plans.map((p) => p.crd))];
  const emitter = new SchemaEmitter([
    'KubeObject',
    'CustomResourceDefinition',
    ...plans.flatMap((p) => ['Spec', 'Status', 'Kind', ''].map((s) => `${p.base}${s}`)),
    ...distinctCrds.map(crdConstantName),
  ]);
  for (const p of plans) emitKind(emitter, p);
  for (const crd of distinctCrds) emitter.add(crdConstantSource(crd));
  const from = options.sources?.length ? ` from ${options.sources.join(', ')}` : '';
  const header = [
    `// Code generated by kubeloop-codegen${from}. DO NOT EDIT.`,
    '// To change it, edit the CustomResourceDefinition and run kubeloop-codegen again.',
    "import { defineKindFor } from '@kubeloop/resource';",
    "import type { CustomResourceDefinition, KubeObject } from '@kubeloop/resource';",
  ].join('\n');
  return `${[header, ...emitter.declarations].join('\n\n')}\n`;
}
