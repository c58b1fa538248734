/**
 * Wires the demo operator together: one informer for Playlists, one InformerController, the
 * PlaylistReconciler behind an OpinionatedReconciler (finalizer handling), one Operator.
 * This is the part of `main.ts` a real operator would copy.
 */
import { Client, ConfigMapKind } from '@kubeloop/resource';
import type { Transport } from '@kubeloop/resource';
import {
  DefaultFinalizerSupplier,
  InformerController,
  KubernetesBasedInformer,
  OpinionatedReconciler,
  Operator,
  exponentialBackoffRetryPolicy,
  stripManagedFields,
} from '@kubeloop/operator';
import type { Logger, PrometheusCollector } from '@kubeloop/operator';
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
}

/** The assembled operator and what the runtime needs to serve it. */
export interface PlaylistOperator {
  operator: Operator;
  informer: KubernetesBasedInformer<Playlist>;
  /** Controller and informer metrics. */
  collectors: PrometheusCollector[];
  /** The finalizer put on every Playlist: `operator.v1.Playlist.playlist.kubeloop.dev`. */
  finalizer: string;
}

/** Builds the Playlist operator (nothing runs until `operator.run(signal)`). */
export function createPlaylistOperator(options: PlaylistOperatorOptions): PlaylistOperator {
  const playlists = new Client(PlaylistKind, options.transport);
  const configMaps = new Client(ConfigMapKind, options.transport);
  const { logger } = options;

  const informer = new KubernetesBasedInformer<Playlist>(PlaylistKind, playlists, options.namespace, {
    transform: stripManagedFields,
    errorHandler: (context, error) => logger.warn('informer error (it retries by itself)', { phase: context.phase, error }),
  });

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
  return { operator, informer, collectors: operator.prometheusCollectors(), finalizer };
}
