import type { WatchEvent } from '../client/types.js';
import { ApiError, CodecError } from '../errors.js';
import type { Status } from '../errors.js';
import type { KubeObject } from '../object.js';

/** Options of {@link WatchLineDecoder}. */
export interface WatchLineDecoderOptions {
  /** `apiVersion` given to event objects that lack one. Default: left missing. */
  apiVersion?: string | undefined;
  /** `kind` given to event objects that lack one. Default: left missing. */
  kind?: string | undefined;
  /**
   * Longest line accepted, in bytes; a longer one is reported as a `CodecError` and skipped, so that a
   * server that never sends a newline cannot exhaust memory. Default: 64 MiB.
   */
  maxLineBytes?: number | undefined;
}

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Turns the bytes of a watch response (one JSON object per line) into {@link WatchEvent}s.
 *
 * Lines are split on the newline byte before UTF-8 decoding, so a multibyte character split across two
 * chunks is never corrupted; only the unfinished tail of a chunk is kept. Each line is parsed once and the
 * parsed `{type, object}` is itself the event. A line that cannot be decoded (not JSON, an unknown
 * type, an object without metadata, or, but for bookmarks, without `metadata.name`) becomes
 * `{type: 'ERROR', error: CodecError}` and decoding goes on with the next line; a server `ERROR` event
 * becomes `{type: 'ERROR', error: ApiError}`.
 */
export class WatchLineDecoder<T extends KubeObject = KubeObject> {
  readonly #apiVersion: string | undefined;
  readonly #kind: string | undefined;
  readonly #maxLineBytes: number;
  /** Pieces of the line still waiting for its newline. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Inside an over-long line: drop bytes until the next newline. */
  #skipping = false;

  constructor(options: WatchLineDecoderOptions = {}) {
    this.#apiVersion = options.apiVersion;
    this.#kind = options.kind;
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  /** Decodes every line completed by `chunk` and appends its event to `out`. */
  decode(chunk: Buffer, out: WatchEvent<T>[]): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    if (this.#pendingBytes > 0 || this.#skipping) {
      if (newline < 0) {
        this.#hold(chunk, out);
        return;
      }
      if (this.#skipping) {
        this.#skipping = false;
      } else {
        // The only place bytes are copied: a line that spans chunks.
        this.#pending.push(chunk.subarray(0, newline));
        const line = Buffer.concat(this.#pending, this.#pendingBytes + newline);
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#line(line, 0, line.length, out);
      }
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    while (newline >= 0) {
      this.#line(chunk, start, newline, out);
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.#hold(start === 0 ? chunk : chunk.subarray(start), out);
  }

  /** Decodes a last line the stream ended without a newline (a truncated one becomes a `CodecError`). */
  end(out: WatchEvent<T>[]): void {
    if (this.#pendingBytes > 0) {
      const line = Buffer.concat(this.#pending, this.#pendingBytes);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#line(line, 0, line.length, out);
    }
    this.#skipping = false;
  }

  #hold(piece: Buffer, out: WatchEvent<T>[]): void {
    if (this.#skipping) return;
    this.#pendingBytes += piece.length;
    if (this.#pendingBytes > this.#maxLineBytes) {
      const head = (this.#pending[0] ?? piece).toString('utf8', 0, 200);
      out.push({ type: 'ERROR', error: new CodecError(`watch line longer than ${this.#maxLineBytes} bytes skipped`, { input: head }) });
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#skipping = true;
      return;
    }
    this.#pending.push(piece);
  }

  #line(buf: Buffer, start: number, end: number, out: WatchEvent<T>[]): void {
    if (end > start && buf[end - 1] === CARRIAGE_RETURN) end--;
    if (end === start) return;
    // Also a long line that came whole in one chunk, or in pieces that each fit: the limit must not depend on chunking.
    if (end - start > this.#maxLineBytes) {
      out.push({ type: 'ERROR', error: new CodecError(`watch line longer than ${this.#maxLineBytes} bytes skipped`, { input: buf.toString('utf8', start, start + 200) }) });
      return;
    }
    const text = buf.toString('utf8', start, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      out.push({ type: 'ERROR', error: new CodecError(`malformed watch line: ${(cause as Error).message}`, { cause, input: text }) });
      return;
    }
    out.push(this.#event(value, text));
  }

  #event(value: unknown, text: string): WatchEvent<T> {
    if (typeof value !== 'object' || value === null) return malformed('watch line is not a JSON object', text);
    const event = value as { type?: unknown; object?: unknown };
    const object = event.object as Partial<KubeObject> | null | undefined;
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED':
      case 'BOOKMARK':
        if (typeof object !== 'object' || object === null || typeof object.metadata !== 'object' || object.metadata === null) {
          return malformed(`${event.type} event without an object with metadata`, text);
        }
        // Every stored object has a name; one without would reach caches and handlers under a made-up key.
        if (event.type !== 'BOOKMARK' && (typeof object.metadata.name !== 'string' || object.metadata.name === '')) {
          return malformed(`${event.type} event with an object without metadata.name`, text);
        }
        if (object.apiVersion === undefined && this.#apiVersion !== undefined) object.apiVersion = this.#apiVersion;
        if (object.kind === undefined && this.#kind !== undefined) object.kind = this.#kind;
        return event as WatchEvent<T>;
      case 'ERROR':
        if (typeof object !== 'object' || object === null) return malformed('ERROR event without a Status', text);
        return { type: 'ERROR', error: ApiError.fromStatus(object as Partial<Status>) };
      default:
        return malformed(`unknown watch event type ${JSON.stringify(event.type)}`, text);
    }
  }
}

function malformed(message: string, text: string): WatchEvent<never> {
  return { type: 'ERROR', error: new CodecError(message, { input: text }) };
}
