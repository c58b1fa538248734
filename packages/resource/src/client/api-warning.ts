/**
 * The API server's `Warning` response headers (deprecated APIs, unknown fields under
 * `fieldValidation=Warn`...): `299 - "text"` (RFC 7234 warn-code, agent, quoted text), possibly
 * several in one header joined by commas.
 */

/** One warning of a response. */
export interface ApiWarning {
  /** The warn-code; the Kubernetes API server always sends 299 (miscellaneous persistent warning). */
  code: number;
  /** The warning text, unquoted. */
  text: string;
  /** The request that got it, e.g. `POST /apis/example.com/v1/namespaces/default/widgets`. */
  request: string;
}

/** Receives every warning of every response of a transport. */
export type WarningHandler = (warning: ApiWarning) => void;

/** Parses `Warning` header values into warnings; malformed parts are kept as their raw text. */
export function parseWarningHeaders(header: string | readonly string[] | undefined, request: string): ApiWarning[] {
  if (header === undefined) return [];
  const warnings: ApiWarning[] = [];
  for (const value of typeof header === 'string' ? [header] : header) {
    let rest = value.trim();
    while (rest !== '') {
      const match = /^(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"[^"]*")?\s*(?:,\s*|$)/.exec(rest);
      if (match === null) {
        warnings.push({ code: 299, text: rest, request });
        break;
      }
      warnings.push({ code: Number(match[1]), text: match[3]!.replace(/\\(.)/g, '$1'), request });
      rest = rest.slice(match[0].length);
    }
  }
  return warnings;
}

/** How many distinct warnings the default handler remembers, so that a repeated one is logged once. */
const REMEMBERED_WARNINGS = 1000;

/**
 * The default {@link WarningHandler} of a transport: `console.warn` once per distinct text, as kubectl
 * prints them (`Warning: <text>`).
 */
export function logWarningsOnce(): WarningHandler {
  const seen = new Set<string>();
  return (warning) => {
    if (seen.has(warning.text)) return;
    if (seen.size < REMEMBERED_WARNINGS) seen.add(warning.text);
    console.warn(`Warning: ${warning.text} (${warning.request})`);
  };
}
