/**
 * Object name rules of the Kubernetes API (`k8s.io/apimachinery/pkg/util/validation`), with the
 * real messages, so that kubectl users see what a real cluster would tell them.
 */

const dns1123LabelPattern = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainPattern = `${dns1123LabelPattern}(\\.${dns1123LabelPattern})*`;
const dns1123LabelRegex = new RegExp(`^${dns1123LabelPattern}$`);
const dns1123SubdomainRegex = new RegExp(`^${dns1123SubdomainPattern}$`);

/** A DNS-1123 name rule: its length limit, its pattern and what it says when the pattern fails. */
interface DnsNameRule {
  readonly maxLength: number;
  readonly regex: RegExp;
  readonly patternMessage: string;
}

const dns1123Subdomain: DnsNameRule = {
  maxLength: 253,
  regex: dns1123SubdomainRegex,
  patternMessage:
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
    `(e.g. 'example.com', regex used for validation is '${dns1123SubdomainPattern}')`,
};

const dns1123Label: DnsNameRule = {
  maxLength: 63,
  regex: dns1123LabelRegex,
  patternMessage:
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character " +
    `(e.g. 'my-name',  or '123-abc', regex used for validation is '${dns1123LabelPattern}')`,
};

function dnsNameProblems(value: string, rule: DnsNameRule): string[] {
  const problems: string[] = [];
  if (value.length > rule.maxLength) problems.push(`must be no more than ${rule.maxLength} characters`);
  if (!rule.regex.test(value)) problems.push(rule.patternMessage);
  return problems;
}

/** The problems of a DNS-1123 subdomain (most object names); empty when valid. */
export function dns1123SubdomainProblems(value: string): string[] {
  return dnsNameProblems(value, dns1123Subdomain);
}

/** The problems of a DNS-1123 label (namespace names); empty when valid. */
export function dns1123LabelProblems(value: string): string[] {
  return dnsNameProblems(value, dns1123Label);
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
