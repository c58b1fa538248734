/** `src/main.ts`: runs the operator on a cluster with leader election, metrics and health, until SIGTERM. */
import type { ScaffoldNames } from '../scaffold-names.js';

export function mainTs(n: ScaffoldNames): string {
  return `/**
 * \`node dist/main.js [--kubeconfig FILE] [--namespace NS] [--metrics-port PORT] [--metrics-host HOST]\`: runs the operator against the
 * cluster of the kubeconfig given, else KUBECONFIG, else the pod's service account (in a cluster), else
 * ~/.kube/config. One replica at a time leads (a Lease named ${n.name} in POD_NAMESPACE); /metrics, /healthz and
 * /readyz (and the /status page) are served on the metrics port, on every interface unless --metrics-host (or
 * METRICS_HOST) names one. SIGTERM or SIGINT stops it gracefully: in-flight reconciles finish,
 * the Lease is released.
 */
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { Client, HttpTransport, LeaseKind, isKubeconfigError, loadKubeConfig } from '@kubeloop/resource';
import { OperatorServer, runOperator } from '@kubeloop/operator';
import { create${n.pascal} } from './operator.js';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { kubeconfig: { type: 'string' }, namespace: { type: 'string' }, 'metrics-port': { type: 'string' }, 'metrics-host': { type: 'string' } },
  });
  const kubeconfigPath = values.kubeconfig ?? process.env['KUBECONFIG'];
  const kubeConfig = kubeconfigPath ? loadKubeConfig({ kubeconfigPath, kubeconfigPathFrom: values.kubeconfig ? '--kubeconfig' : 'KUBECONFIG' }) : loadKubeConfig();
  const transport = HttpTransport.fromKubeConfig(kubeConfig);
  const operator = create${n.pascal}({ transport, namespace: values.namespace ?? process.env['WATCH_NAMESPACE'] ?? '' });
  const server = new OperatorServer({
    host: values['metrics-host'] ?? process.env['METRICS_HOST'],
    port: Number(values['metrics-port'] ?? process.env['METRICS_PORT'] ?? 9090),
    collectors: operator.prometheusCollectors(),
  });
  const { exitCode } = await runOperator({
    operator,
    server,
    leaderElection: {
      client: new Client(LeaseKind, transport),
      lease: { namespace: process.env['POD_NAMESPACE'] ?? 'default', name: '${n.name}' },
      identity: process.env['POD_NAME'] ?? \`\${hostname()}-\${process.pid}\`,
    },
  });
  transport.close();
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(\`${n.name} failed: \${isKubeconfigError(error) ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\`);
    process.exit(1);
  },
);
`;
}
