#!/usr/bin/env node
/**
 * `kubeloop-apiserver [options]` (see {@link HELP}): starts the embedded API server, writes its
 * kubeconfig, prints `kubeloop-apiserver listening on <url>` first (tools wait for that line), then
 * where the kubeconfig went, and runs until SIGINT/SIGTERM.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { KubeloopError } from '@kubeloop/resource';
import { startApiServer } from './api-server.js';
import type { ApiServerOptions } from './api-server.js';

const usage =
  'usage: kubeloop-apiserver [--port N] [--host H] [--allowed-host NAME]... [--data-dir DIR] [--repair] [--kubeconfig-out FILE] [--fsync always|batch|never] [--tls] [--token-file FILE | --token T] [--simulate [--nodes N]]';

/** `--help`: every flag with its default. */
const HELP = `${usage}

An embedded Kubernetes API server for development and tests: kubectl, @kubernetes/client-node and
kubeloop operators work against it. By default no controllers run: it stores, validates, watches
and garbage-collects, as envtest does; --simulate also plays the cluster around an operator.

Options:
  --port N                TCP port (default: 0, any free port)
  --host H                interface to bind (default: 127.0.0.1; anything else exposes the server
                          to other machines: use --tls and --token then)
  --allowed-host NAME     a host name requests may be addressed to, besides IP addresses,
                          localhost and --host; repeatable (default: none)
  --data-dir DIR          keep the objects in a write-ahead log in DIR, locked against a second
                          server (default: none, memory only)
  --repair                with --data-dir: drop a damaged part of the log instead of refusing to
                          start (default: off)
  --fsync MODE            with --data-dir: always (a write is on disk before it is answered),
                          batch, or never (default: always)
  --kubeconfig-out FILE   where to write the kubeconfig for this server
                          (default: ./kubeloop.kubeconfig)
  --tls                   serve HTTPS with a self-signed CA, carried by the kubeconfig
                          (default: off, plain HTTP)
  --token-file FILE       require "Authorization: Bearer <the file's first line>", carried by
                          the kubeconfig (written 0600); keeps the token out of \`ps\`
                          (default: none)
  --token T               the same with the token on the command line, where other users of the
                          machine can read it in \`ps\`: prefer --token-file or the environment
                          variable KUBELOOP_APISERVER_TOKEN (precedence: --token, --token-file,
                          the variable; default: none, no authentication)
  --simulate              simulate the cluster: workload controllers (Deployments make ReplicaSets
                          make Pods, Jobs, StatefulSets, DaemonSets, CronJobs, EndpointSlices) and
                          a kubelet running Pods on simulated Nodes, in real time (default: off)
  --nodes N               with --simulate: how many Nodes (default: 3)
  -h, --help              show this text

Stop it with Ctrl-C (SIGINT) or SIGTERM.`;

/** The bearer token from `--token`, else the first line of `--token-file`, else `KUBELOOP_APISERVER_TOKEN`; exits 2 when empty or unreadable. */
async function tokenFrom(flag: string | undefined, file: string | undefined): Promise<string | undefined> {
  let token = flag;
  let source = '--token';
  if (token === undefined && file !== undefined) {
    source = '--token-file';
    try {
      token = (await readFile(file, 'utf8')).split(/\r?\n/, 1)[0]?.trim() ?? '';
    } catch (err) {
      process.stderr.write(`cannot read --token-file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}\n${usage}\n`);
      process.exit(2);
    }
  }
  if (token === undefined && process.env['KUBELOOP_APISERVER_TOKEN'] !== undefined) {
    source = 'KUBELOOP_APISERVER_TOKEN';
    token = process.env['KUBELOOP_APISERVER_TOKEN'];
  }
  if (token === '') {
    process.stderr.write(`${source} must not be empty\n${usage}\n`);
    process.exit(2);
  }
  return token;
}

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
    'token-file'?: string;
    simulate?: boolean;
    nodes?: string;
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
        'token-file': { type: 'string' },
        simulate: { type: 'boolean' },
        nodes: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${usage}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
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
  const token = await tokenFrom(values.token, values['token-file']);
  if (token !== undefined) options.token = token;
  if (values.nodes !== undefined && !values.simulate) {
    process.stderr.write(`--nodes needs --simulate\n${usage}\n`);
    process.exit(2);
  }
  if (values.simulate) {
    const nodes = values.nodes === undefined ? 3 : Number(values.nodes);
    if (!Number.isInteger(nodes) || nodes < 0 || nodes > 1000) {
      process.stderr.write(`invalid --nodes ${values.nodes}: a whole number from 0 to 1000\n${usage}\n`);
      process.exit(2);
    }
    options.simulate = { kubelet: { nodes } };
  }
  const server = await startApiServer(options);
  const kubeconfig = resolve(values['kubeconfig-out'] ?? 'kubeloop.kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  process.stdout.write(`kubeloop-apiserver listening on ${server.url}\nkubeconfig written to ${kubeconfig}\n  export KUBECONFIG=${kubeconfig}\n`);
  if (server.simulation) process.stdout.write(`simulating the cluster: ${server.simulation.controllers.join(', ')}\n`);

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
