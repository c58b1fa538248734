/** The contract between the consumer child (consumer-main.ts) and each library under test. */

/** Every consumer the benchmark knows. */
export type ConsumerName = 'raw' | 'kubeloop' | 'kubeloop-strip' | 'client-node' | 'dot-i';

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
   * Called by the consumer's handler with each object it is handed. Counts the call and notes the time
   * when the marker arrives. The same cost for every consumer: one increment and one string comparison.
   */
  observe(resourceVersion: string | undefined): void;
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
