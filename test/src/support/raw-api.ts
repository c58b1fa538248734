/**
 * Plain HTTP requests to an API server, for tests that need "another client" without any
 * library in between (and to check status codes and bodies exactly).
 */

/** A decoded answer. */
export interface RawResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/** Options of {@link rawRequest}. */
export interface RawRequestOptions {
  /** JSON-serialized unless a string. */
  body?: unknown;
  /** Default `application/json` when there is a body. */
  contentType?: string;
  /** Default 10000. */
  timeoutMs?: number;
}

/** Sends one request to `baseUrl + path` and decodes the JSON answer (the text when not JSON). */
export async function rawRequest<T = Record<string, unknown>>(baseUrl: string, method: string, path: string, options: RawRequestOptions = {}): Promise<RawResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = options.contentType ?? 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const res = await fetch(baseUrl + path, { method, headers, body, signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });
  const text = await res.text();
  let decoded: unknown = text;
  try {
    decoded = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: decoded as T, headers: res.headers };
}
