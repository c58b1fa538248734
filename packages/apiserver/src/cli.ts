#!/usr/bin/env node
/**
 * `kubeloop-apiserver [--port N] [--host H] [--allowed-host NAME]... [--data-dir DIR] [--repair] [--kubeconfig-out FILE] [--fsync always|batch|never] [--tls] [--token T]`
 *
 * Starts the embedded API server, writes its kubeconfig (default `./kubeloop.kubeconfig`),
 * prints exactly one line `kubeloop-apiserver listening on <url>` and runs until SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { KubeloopError } from '@kubeloop/resource';
import { startApiServer } from './api-server.js';
import type { ApiServerOptions } from './api-server.js';

const usage =
  'usage: kubeloop-apiserver [--port N] [--host H] [--allowed-host NAME]... [--data-dir DIR] [--repair] [--kubeconfig-out FILE] [--fsync always|batch|never] [--tls] [--token T]';

async function main(): Promise<void> {
  let values: {
    port?: string;
    host?: string;
    'allowed-host'?: string[];
    'data-dir'?: string;
    repair?: boolean;
    'kubeconfig-out'?: string;
    fsync?: string;
    tls?: boolean;
    token?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'allowed-host': { type: 'string', multiple: true },
        'data-dir': { type: 'string' },
        repair: { type: 'boolean' },
        'kubeconfig-out': { type: 'string' },
        fsync: { type: 'string' },
        tls: { type: 'boolean' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${usage}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const options: ApiServerOptions = { logger: (line) => process.stderr.write(`${line}\n`) };
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      process.stderr.write(`invalid --port ${values.port}\n${usage}\n`);
      process.exit(2);
    }
    options.port = port;
  }
  if (values.host !== undefined) options.host = values.host;
  if (values['allowed-host'] !== undefined) options.allowedHosts = values['allowed-host'];
  if (values['data-dir'] !== undefined) options.dataDir = resolve(values['data-dir']);
  if (values.repair === true) {
    if (options.dataDir === undefined) {
      process.stderr.write(`--repair needs --data-dir\n${usage}\n`);
      process.exit(2);
    }
    options.repair = true;
  }
  if (values.fsync !== undefined) {
    if (values.fsync !== 'always' && values.fsync !== 'batch' && values.fsync !== 'never') {
      process.stderr.write(`invalid --fsync ${values.fsync}\n${usage}\n`);
      process.exit(2);
    }
    options.fsync = values.fsync;
  }
  if (values.tls) options.tls = true;
  if (values.token !== undefined) {
    if (values.token === '') {
      process.stderr.write(`--token must not be empty\n${usage}\n`);
      process.exit(2);
    }
    options.token = values.token;
  }
  const server = await startApiServer(options);
  await server.writeKubeconfig(resolve(values['kubeconfig-out'] ?? 'kubeloop.kubeconfig'));
  process.stdout.write(`kubeloop-apiserver listening on ${server.url}\n`);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`kubeloop-apiserver: stop failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  // Our own errors (a damaged log, a locked data directory) explain themselves: no stack trace.
  const text = err instanceof KubeloopError ? err.message : String((err as Error)?.stack ?? err);
  process.stderr.write(`kubeloop-apiserver: ${text}\n`);
  process.exit(1);
});
