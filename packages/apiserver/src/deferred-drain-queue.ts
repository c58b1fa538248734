/**
 * The queue behind the server's background loops (garbage collector, namespace deleter, simulated
 * controllers): keys queued by a write are worked off shortly after, never inside the write that
 * queued them (one `setImmediate` turn later, then one key after the other), as the controllers of
 * kube-controller-manager react after the change they hear. A key is queued at most once however
 * often it is added; a key added while it is being worked on is worked on again after.
 */
import { nextTurn } from './next-turn.js';

/** Options of {@link DeferredDrainQueue}. */
export interface DeferredDrainQueueOptions<K> {
  /** Works on one key; the next key waits for it. */
  readonly process: (key: K) => Promise<void>;
  /** Receives what `process` threw (the queue does not retry: requeue with `add` if needed). */
  readonly onError: (key: K, err: unknown) => void;
  /** Called when a drain ends with nothing queued, or because the queue stopped. Default: none. */
  readonly onIdle?: () => void;
  /** A key added again while queued moves to the back (true) or keeps its place (false). Default false. */
  readonly requeueToBack?: boolean;
  /** Yield a `setImmediate` turn after each key, so requests are served between keys. Default false. */
  readonly yieldBetweenKeys?: boolean;
  /** Keys added are kept but not worked on until `start()`. Default false: work starts with the first key. */
  readonly waitForStart?: boolean;
}

/** Deduplicated keys, drained a turn later one at a time (see the file comment). */
export class DeferredDrainQueue<K> {
  readonly #options: DeferredDrainQueueOptions<K>;
  /** Keys waiting, in order. */
  readonly #queued = new Set<K>();
  /** The drain under way (from its first turn until it ends). */
  #draining: Promise<void> | undefined;
  #busy = false;
  #started: boolean;
  #stopped = false;

  constructor(options: DeferredDrainQueueOptions<K>) {
    this.#options = options;
    this.#started = options.waitForStart !== true;
  }

  /** Nothing is queued and no key is being worked on. */
  get idle(): boolean {
    return this.#queued.size === 0 && !this.#busy;
  }

  /** `stop` was called: keys added are dropped, a key in progress may check this to end early. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Queues one key (nothing once stopped). */
  add(key: K): void {
    if (this.#stopped) return;
    if (this.#options.requeueToBack === true) this.#queued.delete(key);
    this.#queued.add(key);
    this.#kick();
  }

  /** Starts working on the keys added so far and later (with `waitForStart`; otherwise does nothing). */
  start(): void {
    this.#started = true;
    this.#kick();
  }

  /** Drops queued keys and takes no more; resolves once the key in progress is done. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#queued.clear();
    await this.#draining;
  }

  /** Starts a drain one turn from now, unless one is under way (it picks new keys up). */
  #kick(): void {
    if (this.#draining || !this.#started || this.#stopped || this.#queued.size === 0) return;
    this.#draining = nextTurn()
      .then(() => this.#drain())
      .finally(() => {
        this.#draining = undefined;
        if (this.#queued.size > 0 && !this.#stopped) this.#kick();
        else this.#options.onIdle?.();
      });
  }

  async #drain(): Promise<void> {
    while (!this.#stopped) {
      const next = this.#queued.values().next();
      if (next.done) return;
      const key = next.value;
      this.#queued.delete(key);
      this.#busy = true;
      try {
        await this.#options.process(key);
      } catch (err) {
        this.#options.onError(key, err);
      } finally {
        this.#busy = false;
      }
      if (this.#options.yieldBetweenKeys === true) await nextTurn();
    }
  }
}
