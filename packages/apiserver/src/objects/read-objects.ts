/** Reads: one object, and list pages with selectors, pagination and resourceVersion rules. */
import type { StoredObject } from '../storage/change-event.js';
import { encodeContinueToken, invalidContinueToken } from '../storage/continue-token.js';
import type { ListOptions } from '../http/list-options.js';
import { snapshotAt } from '../storage/list-snapshot.js';
import { storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { badRequest, expired, notFound, resourceVersionTooLarge, tooOldResourceVersion } from '../http/status-error.js';
import { objectKeyOf } from './object-context.js';
import type { ObjectContext } from './object-context.js';

/** One page of a list. */
export interface ListPage {
  /** The selected objects, in key order. */
  readonly items: readonly StoredObject[];
  /** The list's `metadata`: resourceVersion, and continue and remainingItemCount when there are more. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** kube-apiserver's 410 for a continue token whose snapshot is no longer available. */
const continueTooOld =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The stored object; 404 when absent. */
export function getObject(ctx: ObjectContext, type: ResourceType, namespace: string | undefined, name: string): StoredObject {
  const stored = ctx.store.get(storeKeyOf(type), objectKeyOf(namespace, name));
  if (!stored) throw notFound(type, name);
  return stored;
}

/** The objects of one list page and the list's metadata (selectors, pagination and resourceVersion rules applied). */
export function listPage(ctx: ObjectContext, type: ResourceType, namespace: string | undefined, opts: ListOptions): ListPage {
  const storeKey = storeKeyOf(type);
  const current = ctx.store.resourceVersion;
  const requested = opts.resourceVersion;
  let exactRv: number | undefined;
  if (requested !== undefined && requested > 0) {
    if (requested > current) throw resourceVersionTooLarge(requested, current);
    if (opts.resourceVersionMatch === 'Exact' && requested !== current) exactRv = requested;
  }
  const token = opts.continueToken;
  // Only tokens this server issued: their resourceVersion is one it has reached.
  if (token && token.rv > current) throw invalidContinueToken('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  const shardSelector = opts.shardSelector;
  const shard = shardSelector?.toString();
  // The token carries the first page's shard: a later page of another shard (or none) would mix two result sets.
  if (token && token.shard !== shard) throw badRequest(shardMismatch(token.shard, shard));
  const listRv = token ? token.rv : (exactRv ?? current);
  // Later pages (and exact reads of an older state) see the objects as they were at listRv.
  const snapshot = snapshotAt(ctx.store, storeKey, listRv);
  if (!snapshot) {
    if (token) throw expired(continueTooOld);
    throw tooOldResourceVersion(listRv, ctx.store.history(storeKey).since);
  }
  const keys = snapshot.keys;
  const prefix = namespace !== undefined ? `${namespace}/` : undefined;
  let i = token ? lowerBound(keys, token.start) : prefix ? lowerBound(keys, prefix) : 0;
  if (prefix && token && token.start < prefix) i = lowerBound(keys, prefix);
  const filtered = opts.labelSelector !== undefined || opts.fieldSelector !== undefined || shardSelector !== undefined;
  const items: StoredObject[] = [];
  let lastKey: string | undefined;
  let more = false;
  for (; i < keys.length; i++) {
    const key = keys[i] as string;
    if (prefix && !key.startsWith(prefix)) break;
    const stored = snapshot.get(key);
    if (!stored) continue;
    if (filtered) {
      const obj = stored.object;
      if (opts.labelSelector && !opts.labelSelector.matches(obj.metadata.labels)) continue;
      if (opts.fieldSelector && !opts.fieldSelector.matchesObject(obj)) continue;
      if (shardSelector && !shardSelector.matches(obj)) continue;
    }
    if (opts.limit !== undefined && items.length >= opts.limit) {
      more = true;
      break;
    }
    items.push(stored);
    lastKey = key;
  }
  const metadata: Record<string, unknown> = { resourceVersion: String(listRv) };
  if (more && lastKey !== undefined) {
    metadata.continue = encodeContinueToken({ rv: listRv, start: `${lastKey}\u0000`, shard });
    if (!filtered) {
      const end = prefix ? lowerBound(keys, `${prefix.slice(0, -1)}0`) : keys.length;
      metadata.remainingItemCount = end - i;
    }
  }
  // KEP-5866: the applied selector, echoed so that a client can tell a filtered list from a full one.
  if (shard !== undefined) metadata.shardInfo = { selector: shard };
  return { items, metadata };
}

/** The 400 for a continue token of another shard than the request's. */
function shardMismatch(tokenShard: string | undefined, requested: string | undefined): string {
  const name = (shard: string | undefined): string => (shard === undefined ? 'no shardSelector' : `shardSelector ${JSON.stringify(shard)}`);
  return `invalid continue token: it continues a list with ${name(tokenShard)}, but this request has ${name(requested)}; send the first page's shardSelector with every page`;
}
