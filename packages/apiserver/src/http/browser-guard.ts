/**
 * Keeps web pages away from a developer's local server. A page the developer visits can send
 * requests to `http://127.0.0.1:<port>` (a cross-origin form POST or a bodiless `fetch` needs no
 * CORS preflight), or, by DNS rebinding, make its own host name resolve to 127.0.0.1 and read
 * everything as "same-origin". kubectl and @kubernetes/client-node send neither `Origin` nor
 * `Sec-Fetch-Site` and address the server by IP, so they are not affected.
 *
 * Rules, each a 403 Forbidden:
 * 1. `Host` must be an IP address, `localhost`, the host the server was bound to, or one of the
 *    allowed hosts (a rebinding page's requests carry its own DNS name).
 * 2. An `Origin` header must be this server's own origin (browsers send it on cross-origin and on
 *    every POST/PUT/PATCH/DELETE request; `Origin: null` is never this server).
 * 3. `Sec-Fetch-Site`, when sent, must be `same-origin` or `none` (browsers send it on every request).
 *
 * Writes also need a body content type a browser cannot send without a preflight (see
 * `request-body.ts`): a body without one is 415, not parsed as JSON.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

/** The host names a server answers to, besides IP addresses and `localhost`. */
export class AllowedHosts {
  readonly #names: ReadonlySet<string>;

  /** @param names host names (no port), compared case-insensitively: the bound host and the configured extra hosts. */
  constructor(names: readonly string[]) {
    this.#names = new Set(names.map((name) => name.toLowerCase()));
  }

  /** True when a request with this `Host` header (`name[:port]`) may be served. */
  allows(hostHeader: string): boolean {
    const hostname = hostnameOf(hostHeader);
    if (hostname === undefined) return false;
    return isIP(hostname) !== 0 || hostname === 'localhost' || this.#names.has(hostname);
  }
}

/** The host name of a `Host` header or URL authority, lower-case, IPv6 without brackets; undefined when malformed. */
function hostnameOf(authority: string): string | undefined {
  try {
    const hostname = new URL(`http://${authority}`).hostname.toLowerCase();
    return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  } catch {
    return undefined;
  }
}

/** The origin (`scheme://host[:port]`) of a URL, as the URL parser normalises it; undefined when malformed or opaque. */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Why a request is refused as coming from a web page, or undefined when it may be served.
 * `scheme` is the server's own (`https` with `tls`): a page it served itself has that origin. Default `http`.
 */
export function browserRequestProblem(headers: IncomingHttpHeaders, allowedHosts: AllowedHosts, scheme: 'http' | 'https' = 'http'): string | undefined {
  const host = headers.host ?? '';
  if (!allowedHosts.allows(host)) {
    return `the Host ${JSON.stringify(host)} is not one this server answers to (an IP address, localhost, the bound host or an allowed host)`;
  }
  const origin = headers.origin;
  if (origin !== undefined && (originOf(origin) === undefined || originOf(origin) !== originOf(`${scheme}://${host}`))) {
    return `cross-origin requests are refused: Origin ${JSON.stringify(origin)} is not this server`;
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return `cross-site requests are refused (Sec-Fetch-Site: ${site})`;
  }
  return undefined;
}

/** True for an address that only this machine can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (name === 'localhost' || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/**
 * What a server bound to `host` risks, for the warning at start; undefined on a loopback address,
 * or with a token over TLS. Without a token anyone who can connect may do anything; with a token
 * but no TLS, the token can be read off the network.
 */
export function exposureRisk(host: string, options: { token: boolean; tls: boolean }): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  if (!options.token) return 'it has no authentication, anyone who can connect can read and write every object';
  if (!options.tls) return 'its bearer token crosses the network in clear text (no tls)';
  return undefined;
}
