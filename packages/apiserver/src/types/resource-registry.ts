/**
 * Which resource types the server serves, looked up by group, version and plural. Built-ins are
 * registered at start; CRDs add, replace and remove theirs. `revision` changes with every change,
 * so discovery and OpenAPI documents (and their hashes) can be cached between changes.
 */
import type { ResourceType } from './resource-type.js';
import { storeKeyOf } from './resource-type.js';
import { compareVersionPriority } from './version-priority.js';

/** A served API group with its versions, preferred first. */
export interface ServedGroup {
  readonly name: string;
  readonly versions: readonly string[];
}

/** The served resource types. */
export class ResourceRegistry {
  readonly #byStoreKey = new Map<string, ResourceType>();
  readonly #byPath = new Map<string, ResourceType>();
  #revision = 0;

  /** Bumps whenever the set of served types changes. */
  get revision(): number {
    return this.#revision;
  }

  /** Adds or replaces a type (keyed by group and plural). */
  add(type: ResourceType): void {
    this.remove(storeKeyOf(type));
    const key = storeKeyOf(type);
    this.#byStoreKey.set(key, type);
    for (const version of type.versions) this.#byPath.set(`${type.group}/${version}/${type.plural}`, type);
    this.#revision++;
  }

  /** Removes a type; returns it when it was registered. */
  remove(storeKey: string): ResourceType | undefined {
    const type = this.#byStoreKey.get(storeKey);
    if (!type) return undefined;
    this.#byStoreKey.delete(storeKey);
    for (const version of type.versions) this.#byPath.delete(`${type.group}/${version}/${type.plural}`);
    this.#revision++;
    return type;
  }

  /** The type served at `group/version/plural`. */
  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.#byPath.get(`${group}/${version}/${plural}`);
  }

  /** The type of `kind` served at `apiVersion` (`group/version`, or `version` for core), as an owner reference names it. */
  findKind(apiVersion: string, kind: string): ResourceType | undefined {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    for (const type of this.#byStoreKey.values()) {
      if (type.kind === kind && type.group === group && type.versions.includes(version)) return type;
    }
    return undefined;
  }

  /** The type stored under a store key. */
  byStoreKey(storeKey: string): ResourceType | undefined {
    return this.#byStoreKey.get(storeKey);
  }

  /** Every registered type. */
  all(): ResourceType[] {
    return [...this.#byStoreKey.values()];
  }

  /** Types served at a group-version, in registration order. */
  typesIn(group: string, version: string): ResourceType[] {
    return this.all().filter((t) => t.group === group && t.versions.includes(version));
  }

  /** The served groups (core excluded): built-in groups first in registration order, then the rest by name. */
  groups(): ServedGroup[] {
    const versionsByGroup = new Map<string, Set<string>>();
    for (const type of this.#byStoreKey.values()) {
      if (!type.group) continue;
      let set = versionsByGroup.get(type.group);
      if (!set) versionsByGroup.set(type.group, (set = new Set()));
      for (const v of type.versions) set.add(v);
    }
    return [...versionsByGroup].map(([name, versions]) => ({ name, versions: [...versions].sort(compareVersionPriority) }));
  }
}
