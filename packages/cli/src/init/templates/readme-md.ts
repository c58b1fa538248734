/** `README.md` of the new project: the two-command quick start, the layout, deploying it. */
import type { ScaffoldNames } from '../scaffold-names.js';

export function readmeMd(n: ScaffoldNames): string {
  return `# ${n.name}

A Kubernetes operator for \`${n.kind}\` (\`${n.plural}.${n.group}/${n.version}\`), made with kubeloop.
Each ${n.kind} gets a Deployment it owns (image and replicas
from its spec) and a \`Ready\` condition once the Deployment's replicas are ready; a finalizer runs your
cleanup before a ${n.kind} goes.

## Quick start

\`\`\`sh
npm install && npm test        # the operator's tests, on an embedded API server (no cluster, no Docker)
npm install && npm run dev     # the operator on an embedded API server, restarted when you save
\`\`\`

## Layout

\`\`\`
kinds/${n.kindFile}.yaml            the ${n.kind} kind: group, version, spec and status schemas (edit this)
crds/${n.plural}.${n.group}.yaml   its CRD            (generated: npx kubeloop generate)
src/kinds/${n.kindFile}.ts          its TypeScript types and ${n.kind}Kind, ${n.kind}Crd   (generated)
src/${n.kindFile}-reconciler.ts     one reconcile: the Deployment, Ready, the cleanup
src/operator.ts               the controller: informers, owns Deployments, the finalizer
src/main.ts                   runs it: leader election, /metrics /healthz /readyz on :9090, graceful shutdown
src/operator.test.ts          tests with the test kit: happy path, delete, a seeded fault schedule
deploy/operator.yaml          CRD, Namespace, ServiceAccount, RBAC, Deployment   (generated)
Dockerfile                    the container image
\`\`\`

After editing \`kinds/${n.kindFile}.yaml\`, run \`npx kubeloop generate\`; in CI, \`npx kubeloop generate --check\`
fails when a generated file is stale. RBAC covers exactly what the operator uses: its kind, what it owns
(\`"owns"\` in package.json's \`"kubeloop"\` section: add a resource there when the operator creates a new
kind of object, \`"reads"\` for what it only reads), Events, and its Lease.

## Run it on a cluster

\`\`\`sh
npm run build && node dist/main.js --kubeconfig ~/.kube/config      # from your machine (apply crds/ first)
docker build -t ${n.name}:latest .
npx kubeloop manifests --image ${n.name}:latest | kubectl apply -f -
\`\`\`

\`kubeloop manifests\` takes \`--namespace\` (default \`${n.namespace}\`) and \`--replicas\` (default 1;
\`src/main.ts\` is leader-elected, so one replica works and the others stand by; see "Scaling out" in the
kubeloop README to split the work among replicas instead).
`;
}
