/** Names derived from a kind, and the checks a Kubernetes API applies to them. */

/** `BackupSchedule` -> `backup-schedule`, `HTTPRoute` -> `http-route` (file names). */
export function kebabCase(kind: string): string {
  return kind
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

/** `website-operator` -> `WebsiteOperator`. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** `Website` -> `websites`: the default plural (the user gives the right one with --plural when it is irregular). */
export function defaultPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** Why `value` is not a valid name of its sort, or undefined when it is. */
export const nameProblems = {
  /** An API group: a DNS subdomain with at least one dot (`example.com`). */
  group: (value: string): string | undefined =>
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(value) && value.length <= 253 ? undefined : 'an API group must be a lower-case DNS name with a dot, e.g. example.com',
  /** A version: v1, v1alpha1, v2beta3. */
  version: (value: string): string | undefined => (/^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/.test(value) ? undefined : 'a version looks like v1, v1alpha1 or v2beta1'),
  /** A kind: PascalCase letters and digits. */
  kind: (value: string): string | undefined => (/^[A-Z][A-Za-z0-9]*$/.test(value) && value.length <= 63 ? undefined : 'a kind is PascalCase letters and digits, e.g. Website'),
  /** A plural resource name: lower-case letters and digits. */
  plural: (value: string): string | undefined => (/^[a-z][a-z0-9]*$/.test(value) && value.length <= 63 ? undefined : 'a plural is lower-case letters and digits, e.g. websites'),
  /** A namespace (and any DNS label name). */
  namespace: (value: string): string | undefined => (/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(value) && value.length <= 63 ? undefined : 'a namespace is a DNS label: lower-case letters, digits and -, at most 63'),
} as const;
