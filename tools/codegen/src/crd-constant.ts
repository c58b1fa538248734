/**
 * The CRD itself as a typed TypeScript constant (`export const BackupScheduleCrd: CustomResourceDefinition`),
 * generated from the same file as the kinds, so that the CRD an operator installs (`ensureCrd`, the test kit)
 * and the types it compiles against cannot drift apart.
 */
import type { CustomResourceDefinition } from '@kubeloop/resource';
import { docComment, propertyName, stringLiteral } from './ts-syntax.js';

/** The name of the constant of a CRD: `<Kind>Crd`. */
export function crdConstantName(crd: CustomResourceDefinition): string {
  return `${crd.spec!.names.kind}Crd`;
}

/**
 * The declaration of the constant: `apiVersion`, `kind`, the metadata one writes (name, labels,
 * annotations) and the spec; what the server sets (uid, resourceVersion, timestamps, status) is left out.
 */
export function crdConstantSource(crd: CustomResourceDefinition): string {
  const { name, labels, annotations } = crd.metadata;
  const value = {
    apiVersion: crd.apiVersion,
    kind: crd.kind,
    metadata: { name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
    spec: crd.spec,
  };
  return [
    ...docComment([`The CustomResourceDefinition \`${name}\`: install it with \`ensureCrd(transport, ${crdConstantName(crd)})\`.`]),
    `export const ${crdConstantName(crd)}: CustomResourceDefinition = ${literal(value, '')};`,
  ].join('\n');
}

/** A TypeScript literal of a JSON value, two-space indented; arrays of scalars stay on one line. */
function literal(value: unknown, indent: string): string {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return stringLiteral(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((item) => item === null || typeof item !== 'object')) return `[${value.map((item) => literal(item, inner)).join(', ')}]`;
    return `[\n${value.map((item) => `${inner}${literal(item, inner)},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([key, v]) => `${inner}${propertyName(key)}: ${literal(v, inner)},`).join('\n')}\n${indent}}`;
}
