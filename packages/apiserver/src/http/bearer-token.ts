/**
 * Bearer-token authentication (`token` option, `--token`): every request but the health checks
 * and `/version` (which kube-apiserver lets anyone read) must carry `Authorization: Bearer
 * <token>`; others get 401 Unauthorized, as from a real server.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const publicPaths = new Set(['/healthz', '/livez', '/readyz', '/version']);

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Checks requests against one token. */
export class BearerTokenCheck {
  readonly #expected: Buffer;

  constructor(token: string) {
    if (token === '') throw new RangeError('token must not be empty');
    this.#expected = digest(token);
  }

  /** True when the request may proceed. */
  allows(req: IncomingMessage): boolean {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    if (publicPaths.has(q < 0 ? url : url.slice(0, q))) return true;
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    // Comparing fixed-length digests keeps the comparison time independent of the token.
    return match !== null && timingSafeEqual(digest((match[1] as string).trim()), this.#expected);
  }
}
