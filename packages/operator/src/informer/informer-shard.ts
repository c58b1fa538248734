/**
 * The shard of an informer (KEP-5866): the `shardSelector` sent with every list and watch, and the
 * same test applied on the client to every listed object and watch event. A server with
 * `ShardedListAndWatch` has already filtered (it echoes the selector in the list's
 * `metadata.shardInfo`, or on a streaming list's end bookmark), and the test keeps everything; a
 * server without it sends every object, and the test drops those of other shards. One code path,
 * every cluster, and a watch served by an API server replica without the feature (HA skew) cannot
 * leak another shard's objects. The informer is told once, in its log and in the
 * `informer_shard_client_filtering` gauge, which of the two it is getting.
 *
 * Kept as the informer's one mutable view of its shard, so that changing ranges at run time can be
 * added here (a later slice: re-list what entered, deliver "no longer mine" for what left).
 */
import { ShardSelector } from '@kubeloop/resource';
import type { KubeObject, ShardRange } from '@kubeloop/resource';
import { InvalidArgumentError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import type { BoundInformerMetrics } from '../observability/metrics.js';

/** An informer's shard: a parsed selector, or its ranges (all on one field). */
export type InformerShard = ShardSelector | readonly ShardRange[];

/** The annotation of a streaming list's end bookmark holding the empty list whose metadata a LIST would have had. */
export const INITIAL_EVENTS_LIST_BLUEPRINT_ANNOTATION = 'kubernetes.io/initial-events-list-blueprint';

/** The `metadata.shardInfo` of a streaming list's end bookmark (in its list blueprint), if any. */
export function blueprintShardInfo(bookmark: KubeObject): { selector: string } | undefined {
  const encoded = bookmark.metadata.annotations?.[INITIAL_EVENTS_LIST_BLUEPRINT_ANNOTATION];
  if (encoded === undefined) return undefined;
  try {
    const blueprint = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as { metadata?: { shardInfo?: { selector?: unknown } } };
    const selector = blueprint.metadata?.shardInfo?.selector;
    return typeof selector === 'string' ? { selector } : undefined;
  } catch {
    // A blueprint we cannot read (protobuf, damaged) says nothing about the shard: filter on the client.
    return undefined;
  }
}

/** Whether the server's echo is this selector (compared as parsed ranges: spacing and quotes may differ). */
function echoes(selector: ShardSelector, shardInfo: { selector: string } | undefined): boolean {
  if (shardInfo === undefined) return false;
  try {
    return ShardSelector.parse(shardInfo.selector).equals(selector);
  } catch {
    return false;
  }
}

/** What the informer's shard filter reports to. */
export interface ShardFilterReporting {
  readonly logger: Logger;
  readonly metrics: () => BoundInformerMetrics | undefined;
  /** Log attributes naming the informer. */
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** The shard test of one informer and what it has learnt of the server. */
export class ShardFilter {
  readonly selector: ShardSelector;
  readonly #reporting: ShardFilterReporting;
  /** True while the server is seen ignoring the selector; undefined before the first list. */
  #onClient: boolean | undefined;
  #loggedFallback = false;

  constructor(shard: InformerShard, reporting: ShardFilterReporting) {
    try {
      this.selector = shard instanceof ShardSelector ? shard : ShardSelector.of(shard);
    } catch (error) {
      throw new InvalidArgumentError(`shard: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.#reporting = reporting;
  }

  /** True while objects are filtered on the client because the server ignored the selector. */
  get filteringOnClient(): boolean {
    return this.#onClient === true;
  }

  /** After a list page, or a streaming list's end bookmark: whether the server applied the selector. */
  observeEcho(shardInfo: { selector: string } | undefined): void {
    const onClient = !echoes(this.selector, shardInfo);
    if (onClient === this.#onClient) return;
    this.#onClient = onClient;
    this.#reporting.metrics()?.shardClientFiltering?.(onClient);
    if (onClient && !this.#loggedFallback) {
      this.#loggedFallback = true;
      this.#reporting.logger.info('the server did not apply the shard selector (no shardInfo): filtering on the client; the server needs KEP-5866 (ShardedListAndWatch)', {
        ...this.#reporting.attributes,
        shardSelector: this.selector.toString(),
        shardInfo: shardInfo?.selector,
      });
    }
  }

  /** Whether `object` is in the shard; one that is not is counted as filtered on the client. */
  keeps(object: KubeObject): boolean {
    if (this.selector.matches(object)) return true;
    this.#reporting.metrics()?.shardFilteredOnClient?.(1);
    return false;
  }
}
