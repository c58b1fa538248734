/**
 * `defineKind()`: the one way to describe a resource type. The result carries everything the
 * client needs to build URLs and (de)serialize typed objects of the kind.
 */
import { JsonCodec, YamlCodec } from './codec.js';
import type { Codec, Encoding } from './codec.js';
import type { Kind, Scope } from './kind.js';
import { formatApiVersion } from './object.js';
import type { KubeObject } from './object.js';

/** What describes a kind. Only group, version and kind are required. */
export interface KindDefinition {
  /** API group, e.g. `playlist.grafana.app`; '' for the core group. */
  readonly group: string;
  /** Version, e.g. `v1`. */
  readonly version: string;
  /** PascalCase kind, e.g. `Playlist`. */
  readonly kind: string;
  /** URL plural. Default: {@link defaultPlural} of the kind (`Playlist` -> `playlists`, `Policy` -> `policies`). */
  readonly plural?: string | undefined;
  /** Singular name. Default: the kind in lower case. */
  readonly singular?: string | undefined;
  /** Default: `'Namespaced'`. */
  readonly scope?: Scope | undefined;
  /** Short names for kubectl (`cm`). Default: none. */
  readonly shortNames?: readonly string[] | undefined;
}

const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The default plural of a kind: lower case plus `s`; `es` after `s`, `x`, `ch`, `sh`; `ies` for
 * a `y` after a consonant (`Policy` -> `policies`, but `Gateway` -> `gateways`).
 */
export function defaultPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

function check(ok: boolean, what: string, value: string, rule: string): void {
  if (!ok) throw new TypeError(`defineKind: invalid ${what} ${JSON.stringify(value)}: ${rule}`);
}

/**
 * Defines a kind whose objects are `KubeObject<Spec, Status>`.
 *
 * ```ts
 * const PlaylistKind = defineKind<PlaylistSpec>({ group: 'playlist.grafana.app', version: 'v0alpha1', kind: 'Playlist' });
 * ```
 * @throws TypeError when a name is not valid for the Kubernetes API (checked once, at definition).
 */
export function defineKind<Spec = unknown, Status = unknown>(def: KindDefinition): Kind<KubeObject<Spec, Status>> {
  return defineKindFor<KubeObject<Spec, Status>>(def);
}

/**
 * Defines a kind for an object type declared elsewhere (the built-in kinds, generated types).
 * @throws TypeError as {@link defineKind}.
 */
export function defineKindFor<T extends KubeObject>(def: KindDefinition): Kind<T> {
  const { group, version, kind } = def;
  const plural = def.plural ?? defaultPlural(kind);
  const singular = def.singular ?? kind.toLowerCase();
  const scope = def.scope ?? 'Namespaced';
  const shortNames = Object.freeze([...(def.shortNames ?? [])]);

  check(group === '' || (group.length <= 253 && dnsSubdomain.test(group)), 'group', group, "must be '' or a lower-case DNS subdomain");
  check(dns1035Label.test(version), 'version', version, 'must be a lower-case DNS label starting with a letter');
  check(/^[A-Za-z][A-Za-z0-9]*$/.test(kind) && kind.length <= 63, 'kind', kind, 'must be alphanumeric, start with a letter and have at most 63 characters');
  for (const [what, name] of [['plural', plural], ['singular', singular], ...shortNames.map((s) => ['short name', s])] as [string, string][]) {
    check(dns1035Label.test(name) && name.length <= 63, what, name, 'must be a lower-case DNS label starting with a letter');
  }
  check(scope === 'Namespaced' || scope === 'Cluster', 'scope', scope, "must be 'Namespaced' or 'Cluster'");

  const apiVersion = formatApiVersion(group, version);
  const expect = { apiVersion, kind };
  const json = new JsonCodec<T>({ expect });
  let yaml: YamlCodec<T> | undefined;

  return Object.freeze({
    group,
    version,
    kind,
    plural,
    singular,
    scope,
    shortNames,
    apiVersion,
    zeroValue(): T {
      return { apiVersion, kind, metadata: { name: '' } } as T;
    },
    codec(encoding: Encoding = 'json'): Codec<T> {
      if (encoding === 'json') return json;
      if (encoding === 'yaml') return (yaml ??= new YamlCodec<T>({ expect }));
      throw new TypeError(`unknown encoding ${JSON.stringify(encoding)} (expected 'json' or 'yaml')`);
    },
  });
}
