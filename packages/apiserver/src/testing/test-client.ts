/**
 * Test utilities for the API server's own tests: plain HTTP requests, a raw watch reader that
 * records every chunk, `waitFor`, and a ready-made CRD. Not part of the public API.
 */
import { request } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';

/** A decoded HTTP answer. */
export interface TestResponse {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
  /** The parsed JSON body (undefined when not JSON). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Sends one request; `body` objects are sent as JSON unless `contentType` says otherwise. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  options?: { contentType?: string; headers?: Record<string, string> },
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options?.headers };
  let payload: string | Buffer | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    headers['content-type'] = options?.contentType ?? 'application/json';
  }
  const res = await fetch(baseUrl + path, { method, headers, body: payload ?? null });
  const text = await res.text();
  const plainHeaders: Record<string, string> = {};
  res.headers.forEach((value, key) => (plainHeaders[key] = value));
  // Parsed when first read: a freeze probe in this process times the server, not the test's own
  // parse of a large answer.
  let parsed: { value: unknown } | undefined;
  return {
    status: res.status,
    headers: plainHeaders,
    text,
    get body(): unknown {
      if (parsed === undefined) {
        try {
          parsed = { value: JSON.parse(text) };
        } catch {
          parsed = { value: undefined };
        }
      }
      return parsed.value;
    },
  };
}

/** Polls `cond` until it is truthy or the deadline passes (then throws). */
export async function waitFor<T>(cond: () => T | Promise<T>, options?: { timeoutMs?: number; message?: string }): Promise<T> {
  const deadline = Date.now() + (options?.timeoutMs ?? 5000);
  for (;;) {
    const value = await cond();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waitFor timed out${options?.message ? `: ${options.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A watch event as received. */
export interface ReceivedEvent {
  type: string;
  object: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A watch connection that records every chunk and every parsed line. */
export class RawWatch {
  readonly chunks: string[] = [];
  readonly events: ReceivedEvent[] = [];
  status = 0;
  headers: IncomingMessage['headers'] = {};
  /** True once the server ended the stream cleanly. */
  ended = false;
  /** Set when the connection failed (reset, torn). */
  error: Error | undefined;
  /** Text after the last newline (a torn line stays here). */
  partial = '';
  readonly #req: ClientRequest;

  /** @param options.headers request headers (e.g. a Table `Accept`); default none. */
  constructor(url: string, options: { headers?: Record<string, string> } = {}) {
    this.#req = request(url, { headers: options.headers ?? {} }, (res) => {
      this.status = res.statusCode ?? 0;
      this.headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        this.chunks.push(chunk);
        const text = this.partial + chunk;
        const lines = text.split('\n');
        this.partial = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) this.events.push(JSON.parse(line) as ReceivedEvent);
      });
      res.on('end', () => (this.ended = true));
      res.on('error', (err) => (this.error = err));
      res.on('aborted', () => (this.error ??= new Error('aborted')));
    });
    this.#req.on('error', (err) => (this.error = err));
    this.#req.end();
  }

  /** Resolves once the response headers arrived. */
  async ready(): Promise<this> {
    await waitFor(() => this.status !== 0 || this.error, { message: 'watch headers' });
    return this;
  }

  /** Waits until at least `n` events arrived. */
  async waitForEvents(n: number, timeoutMs = 5000): Promise<ReceivedEvent[]> {
    await waitFor(() => this.events.length >= n, { timeoutMs, message: `${n} watch events (have ${this.events.length}: ${JSON.stringify(this.events.map((e) => e.type))})` });
    return this.events;
  }

  /** Events other than bookmarks. */
  get changes(): ReceivedEvent[] {
    return this.events.filter((e) => e.type !== 'BOOKMARK');
  }

  /** Closes the connection from the client side. */
  close(): void {
    this.#req.destroy();
  }
}

/** A namespaced CRD `widgets.example.com` (v1, status subresource, a small schema). */
export function widgetCrd(overrides?: { statusSubresource?: boolean; scope?: 'Namespaced' | 'Cluster' }): Record<string, unknown> {
  const version: Record<string, unknown> = {
    name: 'v1',
    served: true,
    storage: true,
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 }, color: { type: 'string', enum: ['red', 'blue'] } } },
          status: { type: 'object', properties: { ready: { type: 'boolean' }, message: { type: 'string' } } },
        },
      },
    },
  };
  if (overrides?.statusSubresource ?? true) version.subresources = { status: {} };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
      scope: overrides?.scope ?? 'Namespaced',
      versions: [version],
    },
  };
}

/** Path of the widgets collection in a namespace. */
export const widgetsPath = (namespace = 'default'): string => `/apis/example.com/v1/namespaces/${namespace}/widgets`;
