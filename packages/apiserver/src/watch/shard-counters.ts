/**
 * The server's KEP-5866 counters, named as kube-apiserver names its metrics. This server has no
 * `/metrics` endpoint: they are read through `ApiServer.connectionStats().shardCounters`.
 */

/** Counts of sharded list and watch (see {@link ShardCounters}). */
export interface ShardCounterValues {
  /** Watches opened with a `shardSelector` since the server started. */
  readonly apiserver_watch_shards_total: number;
  /** Watch events (initial, kept or live) not sent to a sharded watch because their object is outside its shard. */
  readonly apiserver_watch_filtered_events_total: number;
}

/** The mutable counters behind {@link ShardCounterValues}. */
export class ShardCounters {
  watchShards = 0;
  filteredEvents = 0;

  values(): ShardCounterValues {
    return { apiserver_watch_shards_total: this.watchShards, apiserver_watch_filtered_events_total: this.filteredEvents };
  }
}
