/**
 * A kind schema: the short file a project keeps per kind (`kinds/website.yaml`): group, version, kind,
 * plural, scope, and the OpenAPI schemas of `spec` and `status`. `kubeloop generate` turns it into the
 * CRD (and the CRD into TypeScript), so the schema is the one source of both.
 */
import { parseDocument } from 'yaml';
import type { JSONSchemaProps } from '@kubeloop/resource';
import { CommandFailure } from '../cli-errors.js';
import { nameProblems } from './names.js';

export interface KindSchema {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /** Default: Namespaced. */
  readonly scope: 'Namespaced' | 'Cluster';
  /** Default: none. */
  readonly shortNames: readonly string[];
  readonly spec: JSONSchemaProps;
  /** Default: an object with Kubernetes conditions. */
  readonly status: JSONSchemaProps | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a kind schema from YAML text; every problem is one line naming `file` and the field. */
export function parseKindSchema(text: string, file: string): KindSchema {
  const document = parseDocument(text);
  const error = document.errors[0];
  if (error !== undefined) throw new CommandFailure(`${file}: not valid YAML: ${error.message.split('\n')[0] ?? ''}`);
  const value: unknown = document.toJS();
  if (!isRecord(value)) throw new CommandFailure(`${file}: a kind schema is a map with group, version, kind, plural, spec and status`);
  const text_ = (field: 'group' | 'version' | 'kind' | 'plural'): string => {
    const v = value[field];
    if (typeof v !== 'string' || v === '') throw new CommandFailure(`${file}: ${field} is missing (a string)`);
    const problem = nameProblems[field](v);
    if (problem !== undefined) throw new CommandFailure(`${file}: ${field} ${JSON.stringify(v)}: ${problem}`);
    return v;
  };
  const scope = value['scope'] ?? 'Namespaced';
  if (scope !== 'Namespaced' && scope !== 'Cluster') throw new CommandFailure(`${file}: scope must be Namespaced or Cluster, not ${JSON.stringify(scope)}`);
  const shortNames = value['shortNames'] ?? [];
  if (!Array.isArray(shortNames) || !shortNames.every((s) => typeof s === 'string')) throw new CommandFailure(`${file}: shortNames must be a list of strings`);
  const spec = value['spec'];
  if (!isRecord(spec) || spec['type'] !== 'object') throw new CommandFailure(`${file}: spec must be an OpenAPI schema of type object`);
  const status = value['status'];
  if (status !== undefined && (!isRecord(status) || status['type'] !== 'object')) throw new CommandFailure(`${file}: status must be an OpenAPI schema of type object`);
  const known = new Set(['group', 'version', 'kind', 'plural', 'scope', 'shortNames', 'spec', 'status']);
  const unknown = Object.keys(value).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new CommandFailure(`${file}: unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')} (fields: ${[...known].join(', ')})`);
  return {
    group: text_('group'),
    version: text_('version'),
    kind: text_('kind'),
    plural: text_('plural'),
    scope,
    shortNames: shortNames,
    spec: spec,
    status: status,
  };
}
