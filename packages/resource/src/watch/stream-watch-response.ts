import type { Readable } from 'node:stream';
import type { WatchEvent, WatchResponse } from '../client/types.js';
import { NetworkError } from '../errors.js';
import type { KubeObject } from '../object.js';
import { WatchLineDecoder } from './watch-line-decoder.js';
import type { WatchLineDecoderOptions } from './watch-line-decoder.js';

/** Options of {@link StreamWatchResponse}. */
export interface StreamWatchResponseOptions extends WatchLineDecoderOptions {
  /** Stops the watch when aborted (iteration ends normally). Default: none. */
  signal?: AbortSignal | undefined;
  /** Pause reading the socket while this many decoded events wait to be consumed. Default: 1000. */
  highWaterMark?: number | undefined;
  /** Names the watch in error messages, e.g. `GET /api/v1/configmaps`. Default: `watch`. */
  description?: string | undefined;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const DONE_PROMISE: Promise<IteratorReturnResult<undefined>> = Promise.resolve(DONE);

type State = 'open' | 'ended' | 'failed' | 'stopped';

/**
 * A {@link WatchResponse} over the body of a watch request. Events decoded from one chunk are buffered, so
 * `next()` answers from the buffer without waiting while it is not empty; the socket is paused while more
 * than `highWaterMark` events are waiting (backpressure) and resumed once they are consumed.
 *
 * The server closing the stream cleanly ends iteration; a connection failure mid-stream makes the iterator
 * throw a `NetworkError` after the events already received; `stop()`, an aborted signal or leaving a
 * `for await` loop end iteration and close the connection.
 */
export class StreamWatchResponse<T extends KubeObject = KubeObject> implements WatchResponse<T>, AsyncIterator<WatchEvent<T>> {
  readonly #body: Readable;
  readonly #decoder: WatchLineDecoder<T>;
  readonly #highWaterMark: number;
  readonly #signal: AbortSignal | undefined;
  readonly #description: string;
  #queue: WatchEvent<T>[] = [];
  #head = 0;
  #state: State = 'open';
  #error: NetworkError | undefined;
  #paused = false;
  #waiter: { resolve: (result: IteratorResult<WatchEvent<T>>) => void; reject: (err: unknown) => void } | undefined;

  constructor(body: Readable, options: StreamWatchResponseOptions = {}) {
    this.#body = body;
    this.#decoder = new WatchLineDecoder<T>(options);
    this.#highWaterMark = options.highWaterMark ?? 1000;
    this.#signal = options.signal;
    this.#description = options.description ?? 'watch';
    body.on('data', this.#onData);
    body.on('end', this.#onEnd);
    body.on('error', this.#onError);
    body.on('close', this.#onClose);
    // The connection may have gone before these listeners existed: an HTTP response emits no
    // 'error' without a listener, and 'close' only once, so nothing would ever end this watch.
    if (body.destroyed) {
      const failure = body.errored;
      if (failure) this.#onError(failure);
      else this.#onClose();
    }
    if (this.#signal) {
      if (this.#signal.aborted) this.stop();
      else this.#signal.addEventListener('abort', this.#onAbort, { once: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return this;
  }

  /** The next event: at once from the buffer when one is waiting, otherwise when the next chunk arrives. */
  next(): Promise<IteratorResult<WatchEvent<T>>> {
    if (this.#head < this.#queue.length) return Promise.resolve({ done: false, value: this.#take() });
    if (this.#state === 'open') {
      if (this.#waiter) return Promise.reject(new TypeError('a watch is iterated by one consumer at a time'));
      return new Promise((resolve, reject) => {
        this.#waiter = { resolve, reject };
      });
    }
    const error = this.#error;
    if (error) {
      // Thrown once; afterwards the iterator is simply done.
      this.#error = undefined;
      return Promise.reject(error);
    }
    return DONE_PROMISE;
  }

  /** Called when a `for await` loop is left early: stops the watch. */
  return(): Promise<IteratorResult<WatchEvent<T>>> {
    this.stop();
    return DONE_PROMISE;
  }

  /** Closes the connection; pending and later iterations end. Idempotent. */
  stop(): void {
    if (this.#state === 'stopped') return;
    this.#state = 'stopped';
    this.#error = undefined;
    this.#queue = [];
    this.#head = 0;
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#body.destroy();
    this.#settle();
  }

  #take(): WatchEvent<T> {
    const event = this.#queue[this.#head]!;
    if (++this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
      if (this.#paused && this.#state === 'open') {
        this.#paused = false;
        this.#body.resume();
      }
    }
    return event;
  }

  /** Answers a waiting `next()` from the current state. */
  #settle(): void {
    const waiter = this.#waiter;
    if (!waiter) return;
    if (this.#head < this.#queue.length) {
      this.#waiter = undefined;
      waiter.resolve({ done: false, value: this.#take() });
    } else if (this.#state !== 'open') {
      this.#waiter = undefined;
      const error = this.#error;
      this.#error = undefined;
      if (error) waiter.reject(error);
      else waiter.resolve(DONE);
    }
  }

  readonly #onData = (chunk: Buffer): void => {
    if (this.#state !== 'open') return;
    this.#decoder.decode(chunk, this.#queue);
    if (this.#queue.length - this.#head > this.#highWaterMark && !this.#paused) {
      this.#paused = true;
      this.#body.pause();
    }
    this.#settle();
  };

  readonly #onEnd = (): void => {
    if (this.#state !== 'open') return;
    this.#decoder.end(this.#queue);
    this.#finish('ended', undefined);
  };

  readonly #onError = (err: Error): void => {
    if (this.#state !== 'open') return;
    const errno = (err as { code?: unknown }).code;
    this.#finish(
      'failed',
      new NetworkError(`${this.#description}: ${err.message}`, { cause: err, errno: typeof errno === 'string' ? errno : 'ECONNRESET' }),
    );
  };

  readonly #onClose = (): void => {
    if (this.#state !== 'open') return;
    this.#finish('failed', new NetworkError(`${this.#description}: connection closed before the stream ended`, { errno: 'ECONNRESET' }));
  };

  readonly #onAbort = (): void => this.stop();

  #finish(state: 'ended' | 'failed', error: NetworkError | undefined): void {
    this.#state = state;
    this.#error = error;
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#settle();
  }
}
