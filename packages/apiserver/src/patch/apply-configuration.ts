/**
 * Reading a server-side apply body, with kube-apiserver's error texts: YAML that does not parse
 * is 400 `error decoding YAML: ...` (a key set twice reads as Go's yaml decoder words it, `line
 * 11: key "foo" already set in map`), and a configuration with fields the kind does not declare is
 * 400 `failed to create typed patch object (ns/name; group/version, Kind=Kind): .spec.x: field not
 * declared in schema` (kube-apiserver 1.32 answers that text with a 500, a known bug fixed to 400).
 * Configurations nested deeper than `json-text.ts`'s limit are 400 `exceeded max depth of 1000`.
 */
import type { KubeObject } from '@kubeloop/resource';
import { maxNestingDepth } from '../http/json-text.js';
import { parseYamlText } from '../yaml/yaml-text.js';
import type { YamlParsed } from '../yaml/yaml-text.js';
import type { ResourceType } from '../types/resource-type.js';
import { badRequest } from '../http/status-error.js';

/** Parses an apply body (YAML or JSON), or takes it parsed; 400 with the real server's words when it does not parse. */
export function parseApplyBody(body: string, parsed: YamlParsed = parseYamlText(body)): unknown {
  if (parsed.ok) return parsed.value;
  const problem = parsed.problem;
  if (problem.kind === 'too-deep') throw badRequest(`error decoding YAML: exceeded max depth of ${maxNestingDepth}`);
  if (problem.kind === 'duplicate-key') {
    throw badRequest(`error decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line ${problem.line}: key ${problem.key} already set in map`);
  }
  throw badRequest(`error decoding YAML: ${problem.message}`);
}

/** 400 when an apply configuration has fields `type` does not declare. Decoding drops them from `config`: give it a copy. */
export function checkDeclaredFields(type: ResourceType, version: string, config: unknown, namespace: string | undefined, name: string): void {
  if (!type.decode || typeof config !== 'object' || config === null || Array.isArray(config)) return;
  const unknown = type.decode(config as KubeObject, version).unknownFields.filter((f) => f !== 'metadata' && !f.startsWith('metadata.'));
  if (unknown.length === 0) return;
  const gv = `${type.group}/${version}`;
  const target = `${type.namespaced ? (namespace ?? '') : ''}/${name}`;
  throw badRequest(`failed to create typed patch object (${target}; ${gv}, Kind=${type.kind}): ${unknown.map((f) => `.${f}: field not declared in schema`).join('\n')}`);
}
