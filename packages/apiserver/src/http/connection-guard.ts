/**
 * What one client may hold on to: the server's connections, counted against `maxConnections`
 * (requests on a connection accepted past it are answered 429 and the connection closed), and a
 * write timeout: a connection with bytes waiting to be sent that its client takes none of for
 * `writeTimeoutMs` is cut (reset), whatever the response (list, watch, table, a single object),
 * so a client that never reads frees what it pinned.
 *
 * Upstream, a handler still writing when `--request-timeout` (60 s) passes has its connection
 * killed, and the watch cache closes watchers that do not keep up; kube-apiserver has no
 * connection cap of its own, but answers past `--max-requests-inflight` with this same 429.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Options of {@link ConnectionGuard}. */
export interface ConnectionGuardOptions {
  /** Connections served at once; requests on a connection accepted beyond are 429. */
  readonly maxConnections: number;
  /** How long a connection may have bytes waiting while its client takes none before it is cut. */
  readonly writeTimeoutMs: number;
  /** Receives one line per check that cut clients. */
  readonly logger: (line: string) => void;
}

/** Counters of {@link ConnectionGuard}. */
export interface ConnectionStats {
  /** Connections open now. */
  readonly connections: number;
  /** Connections accepted past `maxConnections` (their requests were answered 429). */
  readonly refusedConnections: number;
  /** Connections cut because their client took no bytes for `writeTimeoutMs`. */
  readonly writeTimeouts: number;
}

/** Write progress of one connection, as last seen by the check. */
interface WriteProgress {
  /** Bytes the socket had handed to the kernel. */
  taken: number;
  /** When the socket last had nothing waiting or handed bytes on; undefined while nothing waits. */
  stalledSince: number | undefined;
}

/** How often connections are checked, at most (the write timeout is kept to within a quarter of itself). */
const maxCheckIntervalMs = 1000;
/** Addresses named in one log line; the rest are counted. */
const namedPerLine = 3;

/** Tracks the connections of one server. */
export class ConnectionGuard {
  readonly #options: ConnectionGuardOptions;
  readonly #open = new Map<Socket, WriteProgress>();
  readonly #overCap = new WeakSet<Socket>();
  #refused = 0;
  #writeTimeouts = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ConnectionGuardOptions) {
    this.#options = options;
  }

  /**
   * Counts the connections `server` accepts (`event`: `connection`, or `secureConnection` for a
   * TLS server, whose sockets carry the responses) and starts the write-timeout check.
   */
  attach(server: Server, event: 'connection' | 'secureConnection'): void {
    server.on(event, (socket: Socket) => this.#accept(socket));
    this.#timer ??= setInterval(() => this.#check(), Math.min(maxCheckIntervalMs, Math.max(10, this.#options.writeTimeoutMs / 4)));
    this.#timer.unref();
  }

  /** True for a connection accepted past `maxConnections`: its requests are refused. */
  refuses(socket: Socket): boolean {
    return this.#overCap.has(socket);
  }

  /** The counters. */
  stats(): ConnectionStats {
    return { connections: this.#open.size, refusedConnections: this.#refused, writeTimeouts: this.#writeTimeouts };
  }

  /** Stops the check. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #accept(socket: Socket): void {
    if (this.#open.size >= this.#options.maxConnections) {
      this.#overCap.add(socket);
      this.#refused++;
    }
    this.#open.set(socket, { taken: 0, stalledSince: undefined });
    socket.once('close', () => this.#open.delete(socket));
  }

  #check(): void {
    const now = Date.now();
    const cut: string[] = [];
    for (const [socket, progress] of this.#open) {
      const waiting = socket.writableLength;
      if (waiting === 0 || socket.destroyed) {
        progress.stalledSince = undefined;
        continue;
      }
      // bytesWritten counts what was handed over plus what waits: the difference only grows as the kernel takes bytes.
      const taken = (socket.bytesWritten ?? 0) - waiting;
      if (progress.stalledSince === undefined || taken !== progress.taken) {
        progress.taken = taken;
        progress.stalledSince = now;
        continue;
      }
      if (now - progress.stalledSince < this.#options.writeTimeoutMs) continue;
      cut.push(`${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'} (${waiting} bytes waiting)`);
      this.#open.delete(socket);
      // A reset frees the kernel's buffers too, rather than leaving them to a peer that does not read.
      if ('encrypted' in socket) socket.destroy();
      else socket.resetAndDestroy();
    }
    if (cut.length === 0) return;
    this.#writeTimeouts += cut.length;
    const named = cut.slice(0, namedPerLine).join(', ');
    const more = cut.length > namedPerLine ? ` and ${cut.length - namedPerLine} more` : '';
    this.#options.logger(
      `kubeloop-apiserver: cut ${cut.length} client(s) that took no bytes for ${this.#options.writeTimeoutMs} ms (write timeout): ${named}${more}; ${this.#writeTimeouts} cut so far`,
    );
  }
}
