/**
 * `node examples/website-operator/dist/main.js [--kubeconfig FILE]`: the Website operator on a cluster
 * (the kubeconfig given, or KUBECONFIG), or on an embedded API server started here when there is none.
 * It installs the Website CRD, then runs until SIGTERM/SIGINT.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer } from '@kubeloop/apiserver';
import { HttpTransport, ensureCrd, isKubeconfigError, loadKubeConfig } from '@kubeloop/resource';
import { ReconcileAction, runOperator } from '@kubeloop/operator';
import { WebsiteCrd } from './website.js';
import { createWebsiteOperator } from './website-operator.js';
import { isReady } from './website-reconciler.js';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { kubeconfig: { type: 'string' }, 'records-dir': { type: 'string' } } });
  const kubeconfigPath = values.kubeconfig ?? process.env['KUBECONFIG'];
  let server: ApiServer | undefined;
  let transport: HttpTransport;
  if (kubeconfigPath) {
    transport = HttpTransport.fromKubeConfig(loadKubeConfig({ kubeconfigPath, kubeconfigPathFrom: values.kubeconfig ? '--kubeconfig' : 'KUBECONFIG' }));
  } else {
    // A simulated cluster: the Deployments it applies get Pods that run on simulated Nodes and become Ready.
    server = await startApiServer({ simulate: true });
    const kubeconfig = join(process.cwd(), 'website-operator.kubeconfig');
    await server.writeKubeconfig(kubeconfig);
    console.log(`embedded API server ${server.url}; kubectl: export KUBECONFIG=${kubeconfig}`);
    transport = new HttpTransport({ server: server.url });
  }
  await ensureCrd(transport, WebsiteCrd);
  const recordsDir = values['records-dir'] ?? join(process.cwd(), 'dns-records');
  console.log(`DNS records in ${recordsDir}`);
  const operator = createWebsiteOperator({
    transport,
    recordsDir,
    onReconciled: (website, action) =>
      console.log(`${ReconcileAction[action]} ${website.metadata.namespace}/${website.metadata.name}: ${action === ReconcileAction.Deleted ? 'DNS record withdrawn' : isReady(website) ? 'Ready' : 'applied'}`),
  });
  const { exitCode } = await runOperator({ operator });
  transport.close();
  await server?.stop();
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`website-operator failed: ${isKubeconfigError(error) ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
