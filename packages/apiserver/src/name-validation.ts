/**
 * Object name rules of the Kubernetes API (`k8s.io/apimachinery/pkg/util/validation`), with the
 * real messages, so that kubectl users see what a real cluster would tell them.
 */

const dns1123LabelPattern = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainPattern = `${dns1123LabelPattern}(\\.${dns1123LabelPattern})*`;
const dns1123LabelRegex = new RegExp(`^${dns1123LabelPattern}$`);
const dns1123SubdomainRegex = new RegExp(`^${dns1123SubdomainPattern}$`);

/** The problems of a DNS-1123 subdomain (most object names); empty when valid. */
export function dns1123SubdomainProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 253) problems.push('must be no more than 253 characters');
  if (!dns1123SubdomainRegex.test(value)) {
    problems.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'example.com', regex used for validation is '${dns1123SubdomainPattern}')`,
    );
  }
  return problems;
}

/** The problems of a DNS-1123 label (namespace names); empty when valid. */
export function dns1123LabelProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (!dns1123LabelRegex.test(value)) {
    problems.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character " +
        `(e.g. 'my-name',  or '123-abc', regex used for validation is '${dns1123LabelPattern}')`,
    );
  }
  return problems;
}

/** Which rule a kind's names follow. */
export type NameRule = 'subdomain' | 'label';

/** The problems of a name under a rule. */
export function nameProblems(rule: NameRule, value: string): string[] {
  return rule === 'label' ? dns1123LabelProblems(value) : dns1123SubdomainProblems(value);
}

/**
 * The problems of a `generateName` prefix: the prefix plus random characters must make a valid
 * name, so a trailing '-' is allowed (Kubernetes' `maskTrailingDash`).
 */
export function generateNamePrefixProblems(rule: NameRule, prefix: string): string[] {
  const masked = prefix.length > 1 && prefix.endsWith('-') ? `${prefix.slice(0, -1)}a` : prefix;
  return nameProblems(rule, masked);
}

const randomAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** The 5 random characters `generateName` appends (the same alphabet as Kubernetes: no vowels, no confusable digits). */
export function randomNameSuffix(): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += randomAlphabet[Math.floor(Math.random() * randomAlphabet.length)];
  return out;
}

/** `generateName` + suffix, with the prefix cut so that the result fits 63 characters (as Kubernetes does). */
export function generatedName(prefix: string): string {
  const max = 63 - 5;
  return (prefix.length > max ? prefix.slice(0, max) : prefix) + randomNameSuffix();
}
