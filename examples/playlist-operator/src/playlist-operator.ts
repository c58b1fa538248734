/**
 * Wires the demo operator together: one informer for Playlists, one InformerController, the
 * PlaylistReconciler behind an OpinionatedReconciler (finalizer handling), one Operator.
 * This is the part of `main.ts` a real operator would copy. Sharded (one replica of several), the
 * informer is a `ShardedInformer`: it watches only the slots the ring gives this replica.
 */
import { Client, ConfigMapKind } from '@kubeloop/resource';
import type { Transport } from '@kubeloop/resource';
import { Gauge } from 'prom-client';
import {
  DefaultFinalizerSupplier,
  InformerController,
  KubernetesBasedInformer,
  OpinionatedReconciler,
  Operator,
  ShardedInformer,
  exponentialBackoffRetryPolicy,
  stripManagedFields,
} from '@kubeloop/operator';
import type { Informer, Logger, PrometheusCollector } from '@kubeloop/operator';
import type { PlaylistCatalogue } from './catalogue.js';
import { PlaylistKind } from './playlist.js';
import type { Playlist } from './playlist.js';
import { PlaylistReconciler } from './playlist-reconciler.js';
import type { PlaylistReconcilerHooks } from './playlist-reconciler.js';

/** Options of {@link createPlaylistOperator}. */
export interface PlaylistOperatorOptions {
  /** Shared by the clients of every kind (one connection pool). */
  transport: Transport;
  /** Namespace to watch; '' for every namespace. */
  namespace: string;
  catalogue: PlaylistCatalogue;
  logger: Logger;
  hooks?: PlaylistReconcilerHooks | undefined;
  /** Extra time every reconcile takes (tests and demos of in-flight work). Default: 0. */
  workDelayMs?: number | undefined;
  /** How long a shutdown waits for in-flight reconciles. Default: 10000. */
  shutdownTimeoutMs?: number | undefined;
  /**
   * One replica of a sharded operator: the slot of each object (by its uid) when this replica runs a
   * shard ring of that many slots (`runOperator({ sharding })`). Default: undefined (every object).
   */
  shardSlotOf?: ((playlist: Playlist) => number) | undefined;
}

/** The assembled operator and what the runtime needs to serve it. */
export interface PlaylistOperator {
  operator: Operator;
  informer: Informer<Playlist>;
  /** Controller and informer metrics, and `playlist_operator_playlists` (the Playlists this replica holds). */
  collectors: PrometheusCollector[];
  /** The finalizer put on every Playlist: `operator.v1.Playlist.playlist.kubeloop.dev`. */
  finalizer: string;
}

/** Builds the Playlist operator (nothing runs until `operator.run(signal)`). */
export function createPlaylistOperator(options: PlaylistOperatorOptions): PlaylistOperator {
  const playlists = new Client(PlaylistKind, options.transport);
  const configMaps = new Client(ConfigMapKind, options.transport);
  const { logger } = options;

  const informerOptions = {
    transform: stripManagedFields,
    errorHandler: (context: { phase: string }, error: unknown) => logger.warn('informer error (it retries by itself)', { phase: context.phase, error }),
  };
  const informer: Informer<Playlist> =
    options.shardSlotOf === undefined
      ? new KubernetesBasedInformer<Playlist>(PlaylistKind, playlists, options.namespace, informerOptions)
      : new ShardedInformer<Playlist>(PlaylistKind, playlists, options.namespace, informerOptions);

  const controller = new InformerController({
    // Quick first retries suit a demo on one machine; production code may keep the 5 s default.
    retryPolicy: exponentialBackoffRetryPolicy(250, 8, { jitter: 0.2, maxDelay: 30_000 }),
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    logger,
  });
  // Registered under its kind; the controller counts the informer's metrics (informer_*) with its own.
  controller.addInformer(informer);

  const finalizer = DefaultFinalizerSupplier(PlaylistKind);
  const opinionated = new OpinionatedReconciler<Playlist>(playlists, finalizer);
  opinionated.wrap(
    new PlaylistReconciler({
      playlists,
      configMaps,
      catalogue: options.catalogue,
      hooks: options.hooks,
      workDelayMs: options.workDelayMs,
    }),
  );
  controller.addReconciler(opinionated, PlaylistKind);

  const operator = new Operator();
  operator.addController(controller);
  return { operator, informer, collectors: [...operator.prometheusCollectors(), playlistsHeld(informer, options.shardSlotOf)], finalizer };
}

/**
 * `playlist_operator_playlists{namespace, name, slot}`: one series per Playlist in this replica's
 * cache, read when scraped. With replicas, each replica's `/metrics` shows the Playlists it owns.
 */
function playlistsHeld(informer: Informer<Playlist>, slotOf: ((playlist: Playlist) => number) | undefined): Gauge<'namespace' | 'name' | 'slot'> {
  return new Gauge({
    name: 'playlist_operator_playlists',
    help: 'Playlists this replica holds (with sharding: those of the slots it runs), by slot.',
    labelNames: ['namespace', 'name', 'slot'],
    registers: [],
    collect() {
      this.reset();
      for (const playlist of informer.store.values()) {
        this.set({ namespace: playlist.metadata.namespace ?? '', name: playlist.metadata.name, slot: slotOf === undefined ? '' : String(slotOf(playlist)) }, 1);
      }
    },
  });
}
