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

/** Starts a consumer. */
export type StartConsumer = (ctx: ConsumerContext) => RunningConsumer;

/** A consumer module exports `start`, and `watchEventsBeyondStream` when it also replays the list as ADDED events. */
export interface ConsumerModule {
  start: StartConsumer;
  /** True when the consumer watches from resourceVersion '' and so receives one ADDED event per object first. */
  watchesFromScratch?: boolean;
}
