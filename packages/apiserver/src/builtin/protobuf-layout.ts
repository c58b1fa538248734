/**
 * The protobuf layouts of the built-in kinds served from model data, as generated from
 * k8s.io/api's `generated.proto` files: for each message, field number -> JSON name, type and
 * whether it repeats. A type is a protobuf scalar, a message's full name, or `map<T>` (string keys).
 */

/**
 * One field: `[jsonName, type]`, `[jsonName, type, 'repeated']`, or `[name, type, 'inline']` for a
 * Go struct embedded with `json:",inline"` (its fields belong to the enclosing JSON object).
 */
export type ProtobufField = readonly [string, string] | readonly [string, string, 'repeated' | 'inline'];

/** Message layouts by full name (`k8s.io.api.apps.v1.Deployment`). */
export type ProtobufLayouts = Readonly<Record<string, Readonly<Record<string, ProtobufField>>>>;

// scripts/generate-protobuf-layouts.mjs reads this table from here: keep its one-entry-per-line form.
const groupPackages: Readonly<Record<string, string>> = {
  '': 'core',
  'rbac.authorization.k8s.io': 'rbac',
  'networking.k8s.io': 'networking',
  'discovery.k8s.io': 'discovery',
  'events.k8s.io': 'events',
  'storage.k8s.io': 'storage',
  'scheduling.k8s.io': 'scheduling',
  'admissionregistration.k8s.io': 'admissionregistration',
  'coordination.k8s.io': 'coordination',
};

/** The full protobuf message name of `apiVersion`/`kind` (`apps/v1`, `Deployment` -> `k8s.io.api.apps.v1.Deployment`). */
export function protobufMessageName(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `k8s.io.api.${groupPackages[group] ?? group}.${version}.${kind}`;
}
