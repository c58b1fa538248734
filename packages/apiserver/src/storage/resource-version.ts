/**
 * resourceVersions as clients send them (query parameters, continue tokens, delete
 * preconditions, `metadata.resourceVersion` of updates): decimal integers. This server's counter
 * is a JavaScript number, exact up to 2^53-1, so anything beyond is refused rather than rounded
 * (or echoed back as `1e+23`): 400 BadRequest, worded like Go's `strconv.ParseUint` errors.
 */
import { badRequest } from '../http/status-error.js';

/** The largest resourceVersion this server can represent exactly (2^53-1). */
export const maxResourceVersion = Number.MAX_SAFE_INTEGER;

/**
 * Parses a resourceVersion sent as text; `field` names it in the error.
 *
 * @throws StatusError 400 when it is not a decimal integer in [0, 2^53-1].
 */
export function parseResourceVersionText(field: string, text: string): number {
  const invalid = (why: string): Error => badRequest(`${field}: Invalid value: ${JSON.stringify(text)}: strconv.ParseUint: parsing ${JSON.stringify(text)}: ${why}`);
  if (!/^\d+$/.test(text)) throw invalid('invalid syntax');
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw invalid(`value out of range (at most ${maxResourceVersion})`);
  return value;
}
