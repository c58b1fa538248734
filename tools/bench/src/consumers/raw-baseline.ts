/**
 * The raw baseline: what a careful programmer writes with nothing but `node:http`. List, then watch from
 * the list's resourceVersion; split lines, `JSON.parse`, keep the latest object per name in a Map.
 * No reconnects, no error handling beyond failing: the floor every library is compared with.
 */
import { get, type ClientRequest, type IncomingMessage } from 'node:http';
import type { ConsumerContext, PreparedConsumer, RunningConsumer } from './consumer.js';

interface WireObject {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

function getJson(url: string): Promise<{ metadata: { resourceVersion: string }; items: WireObject[] }> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`list: HTTP ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      let body = '';
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        try {
          resolve(JSON.parse(body) as { metadata: { resourceVersion: string }; items: WireObject[] });
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
      res.on('error', reject);
    }).on('error', reject);
  });
}

export function prepare(ctx: ConsumerContext): PreparedConsumer {
  return { start: () => start(ctx) };
}

function start(ctx: ConsumerContext): RunningConsumer {
  const cache = new Map<string, WireObject>();
  const base = `${ctx.serverUrl}/api/v1/namespaces/${ctx.namespace}/configmaps`;
  let request: ClientRequest | undefined;

  const synced = (async () => {
    const list = await getJson(base);
    for (const item of list.items) cache.set(item.metadata.name, item);
    request = get(`${base}?watch=true&resourceVersion=${list.metadata.resourceVersion}`, (res: IncomingMessage) => {
      res.setEncoding('utf8');
      let pending = '';
      res.on('data', (chunk: string) => {
        pending += chunk;
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (line.length === 0) continue;
          const event = JSON.parse(line) as { type: string; object: WireObject };
          if (event.type === 'DELETED') cache.delete(event.object.metadata.name);
          else cache.set(event.object.metadata.name, event.object);
          ctx.observe(event.object.metadata);
        }
      });
      res.on('error', () => undefined);
    });
    request.on('error', () => undefined);
  })();

  return {
    synced,
    cachedObjects: () => cache.size,
    stop: async () => {
      request?.destroy();
    },
  };
}
