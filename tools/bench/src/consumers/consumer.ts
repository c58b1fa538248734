/** The contract between the consumer child (consumer-main.ts) and each library under test. */

/** Every consumer the benchmark knows. */
export type ConsumerName = 'raw' | 'kubeloop' | 'kubeloop-strip' | 'kubeloop-watch' | 'kubeloop-informer' | 'client-node' | 'dot-i';

/** The part of an object's metadata the harness reads. */
export interface ObservedMetadata {
  resourceVersion?: string | undefined;
  annotations?: Record<string, string> | undefined;
}

/** What a consumer gets from the harness. */
export interface ConsumerContext {
  /** `http://127.0.0.1:PORT` of the stream server. */
  readonly serverUrl: string;
  /** A kubeconfig file for the server (http, `insecure-skip-tls-verify: true`). */
  readonly kubeconfigPath: string;
  readonly namespace: string;
  /** The resourceVersion of the last event of the stream. */
  readonly markerResourceVersion: string;
  /**
   * Called by the consumer's handler with the metadata of each object it is handed. Counts the call and
   * notes the time when the marker arrives (or, in latency mode, how long ago the object was written).
   * The same cost for every consumer: one increment and one string comparison.
   */
  observe(metadata: ObservedMetadata | undefined): void;
}

/** A consumer that is running. */
export interface RunningConsumer {
  /** Resolves when the initial list is in the consumer's cache (immediately for consumers without a list). */
  readonly synced: Promise<void>;
  /** Number of objects in the consumer's cache; -1 when it has none. */
  cachedObjects(): number;
  /** Stops watching and releases connections. */
  stop(): Promise<void>;
}

/** A consumer with its library loaded and configured (kubeconfig read, clients built), no I/O started yet. */
export interface PreparedConsumer {
  /** Starts listing and watching. */
  start(): RunningConsumer;
}

/**
 * What each consumer module exports. `prepare` runs before the harness measures the "empty" heap, so that
 * library code and configuration are not counted as cache memory.
 */
export interface ConsumerModule {
  prepare(ctx: ConsumerContext): PreparedConsumer;
  /** True when the consumer watches from resourceVersion '' and so receives one ADDED event per object first. */
  watchesFromScratch?: boolean;
}
