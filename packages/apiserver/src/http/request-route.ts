/**
 * Parses request paths into what they address: discovery, OpenAPI, health, or a resource
 * (`/api/v1/namespaces/{ns}/{plural}/{name}/{subresource}`, `/apis/{group}/{version}/...`,
 * and the legacy `/api/v1/watch/...` form).
 */

/** What a request path addresses. */
export type Route =
  | { readonly kind: 'version' }
  | { readonly kind: 'health' }
  | { readonly kind: 'coreVersions' }
  | { readonly kind: 'groupList' }
  | { readonly kind: 'group'; readonly group: string }
  | { readonly kind: 'resourceList'; readonly group: string; readonly version: string }
  | { readonly kind: 'openapiRoot' }
  | { readonly kind: 'openapiV2' }
  | { readonly kind: 'openapiDocument'; readonly key: string }
  | ResourceRoute
  | { readonly kind: 'notFound' };

/** A path naming a resource collection, object or subresource. */
export interface ResourceRoute {
  readonly kind: 'resource';
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  /** The legacy `/watch/` path prefix was used. */
  readonly legacyWatch: boolean;
}

const notFound: Route = { kind: 'notFound' };
const namespaceSubresources = new Set(['status', 'finalize']);

function resourceRoute(group: string, version: string, rest: string[]): Route {
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && namespaceSubresources.has(rest[2] as string))) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return notFound;
  const [plural, name, subresource] = rest as [string, string | undefined, string | undefined];
  if (plural === '' || name === '' || subresource === '') return notFound;
  return { kind: 'resource', group, version, plural, namespace, name, subresource, legacyWatch };
}

/** Parses a path (without the query). */
export function parseRoute(path: string): Route {
  let segments: string[];
  try {
    segments = path.split('/').filter((s) => s !== '');
    // Most paths have no escapes: decode only when there is something to decode.
    if (path.includes('%')) segments = segments.map(decodeURIComponent);
  } catch {
    return notFound;
  }
  const [first, second, third] = segments;
  switch (first) {
    case 'version':
      return segments.length === 1 ? { kind: 'version' } : notFound;
    case 'healthz':
    case 'livez':
    case 'readyz':
      return { kind: 'health' };
    case 'openapi':
      if (second === 'v2') return segments.length === 2 ? { kind: 'openapiV2' } : notFound;
      if (second !== 'v3') return notFound;
      if (segments.length === 2) return { kind: 'openapiRoot' };
      return { kind: 'openapiDocument', key: segments.slice(2).join('/') };
    case 'api':
      if (segments.length === 1) return { kind: 'coreVersions' };
      if (second !== 'v1') return notFound;
      if (segments.length === 2) return { kind: 'resourceList', group: '', version: 'v1' };
      return resourceRoute('', 'v1', segments.slice(2));
    case 'apis':
      if (segments.length === 1) return { kind: 'groupList' };
      if (segments.length === 2) return { kind: 'group', group: second as string };
      if (segments.length === 3) return { kind: 'resourceList', group: second as string, version: third as string };
      return resourceRoute(second as string, third as string, segments.slice(3));
    default:
      return notFound;
  }
}
