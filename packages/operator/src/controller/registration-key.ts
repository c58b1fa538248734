/**
 * The key an informer, watcher or reconciler is registered under in an `InformerController`: a string
 * of the user's choice (grafana-app-sdk's `resourceKind`), or a `Kind`/`Schema`, whose key is its
 * group-qualified kind (`Playlist.playlist.grafana.app`, `ConfigMap` for the core group, as Go's
 * `schema.GroupKind.String()`), so that a typo is a compile error rather than a handler that never runs.
 */
import type { Schema } from '@kubeloop/resource';

/** A registration key: a string, or a kind whose key is {@link resourceKindKey} of it. */
export type ResourceKindKey = string | Pick<Schema, 'group' | 'kind'>;

/** The string a registration key stands for: the string itself, or `kind.group` (`kind` for the core group). */
export function resourceKindKey(key: ResourceKindKey): string {
  if (typeof key === 'string') return key;
  return key.group ? `${key.kind}.${key.group}` : key.kind;
}

/**
 * What is registered but cannot work: handlers under a key no informer serves (they would never be
 * called) and informers whose key has no handler (their events would be dropped). One message each.
 */
export function unmatchedRegistrations(informerKeys: readonly string[], watcherKeys: readonly string[], reconcilerKeys: readonly string[]): string[] {
  const informers = new Set(informerKeys);
  const handlers = new Set([...watcherKeys, ...reconcilerKeys]);
  const known = informerKeys.length > 0 ? `registered informers: ${[...informers].map((k) => JSON.stringify(k)).join(', ')}` : 'no informer is registered';
  const messages: string[] = [];
  for (const key of handlers) {
    if (!informers.has(key)) messages.push(`watchers and reconcilers of resourceKind ${JSON.stringify(key)} get no events: no informer is registered under that key (${known})`);
  }
  for (const key of informers) {
    if (!handlers.has(key)) messages.push(`the informer of resourceKind ${JSON.stringify(key)} has no watcher or reconciler: its events are dropped`);
  }
  return messages;
}
