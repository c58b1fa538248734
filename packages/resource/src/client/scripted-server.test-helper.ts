// Test helper (not shipped: `files` excludes `*.test.*`): a tiny HTTP server on 127.0.0.1 whose answers
// each test scripts, recording every request it receives.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { HttpTransport } from './transport.js';
import type { HttpTransportOptions } from './transport.js';

/** A request as the scripted server saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The client's port: equal for two requests sent over the same kept-alive connection. */
  remotePort: number;
}

/** Answers one request. */
export type ScriptedHandler = (request: RecordedRequest, res: http.ServerResponse) => void;

/** A running scripted server. */
export interface ScriptedServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Replaces the handler of the next requests. */
  reply(handler: ScriptedHandler): void;
  /** Closes the server and every open connection. */
  close(): Promise<void>;
}

/** Answers with a JSON body. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A Kubernetes `Status` failure body. */
export function statusBody(code: number, reason: string, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, ...(details ? { details } : {}) };
}

/** Starts a server on 127.0.0.1, port 0. Unscripted requests get 404. */
export async function startScriptedServer(): Promise<ScriptedServer> {
  let handler: ScriptedHandler = (_request, res) => sendJson(res, 404, statusBody(404, 'NotFound', 'not scripted'));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort ?? 0,
      };
      requests.push(recorded);
      handler(recorded, res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply(next) {
      handler = next;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A scripted server with an HttpTransport to it: what the client tests talk over. */
export interface ScriptedConnection {
  readonly server: ScriptedServer;
  readonly transport: HttpTransport;
}

/** Starts a scripted server and an HttpTransport to it, made with `options`. */
export async function connectScriptedServer(options: HttpTransportOptions = {}): Promise<ScriptedConnection> {
  const server = await startScriptedServer();
  return { server, transport: new HttpTransport({ ...options, server: server.url }) };
}

/** Closes the transport's connections, then the server. */
export async function closeScriptedConnection({ server, transport }: ScriptedConnection): Promise<void> {
  transport.close();
  await server.close();
}

/** Polls `condition` until it holds; fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean, { timeoutMs = 5000 }: { timeoutMs?: number } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
