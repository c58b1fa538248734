/** A minimal keep-alive JSON client for the writer and watcher children (plain `node:http`, loopback only). */
import { request, type Agent } from 'node:http';

/** The answer to one request. */
export interface HttpAnswer {
  status: number;
  body: string;
}

/** Sends one request and reads the whole answer. Rejects on network errors only. */
export function sendJson(agent: Agent, url: string, method: string, body: unknown, contentType = 'application/json'): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(
      url,
      {
        method,
        agent,
        headers: payload ? { 'Content-Type': contentType, 'Content-Length': payload.length, Accept: 'application/json' } : { Accept: 'application/json' },
      },
      (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Fails unless the answer's status is one of `ok`. */
export function expectStatus(answer: HttpAnswer, ok: readonly number[], what: string): void {
  if (!ok.includes(answer.status)) throw new Error(`${what}: HTTP ${answer.status} ${answer.body.slice(0, 300)}`);
}
