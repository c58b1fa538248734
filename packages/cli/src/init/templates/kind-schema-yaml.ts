/** `kinds/<kind>.yaml`: the kind schema, the one source of the CRD and the TypeScript types. */
import { stringify } from 'yaml';
import { CONDITIONS_STATUS } from '../../project/crd-from-schema.js';
import type { ScaffoldNames } from '../scaffold-names.js';

export function kindSchemaYaml(n: ScaffoldNames): string {
  const schema = {
    group: n.group,
    version: n.version,
    kind: n.kind,
    plural: n.plural,
    scope: 'Namespaced',
    spec: {
      type: 'object',
      required: ['image', 'replicas'],
      properties: {
        image: { type: 'string', minLength: 1, description: `The container image the operator runs for this ${n.kind}.` },
        replicas: { type: 'integer', minimum: 0, maximum: 50, description: 'How many Pods to run.' },
      },
    },
    status: {
      ...CONDITIONS_STATUS,
      properties: {
        readyReplicas: { type: 'integer', description: 'Pods ready, as the Deployment reports them.' },
        ...CONDITIONS_STATUS.properties,
      },
    },
  };
  return [
    `# The ${n.kind} kind: the one source of its CRD (${n.plural}.${n.group} in crds/) and its TypeScript types (src/kinds/).`,
    '# Edit it, then run `npx kubeloop generate` (`npx kubeloop generate --check` in CI fails when they are stale).',
    stringify(schema, { lineWidth: 0 }),
  ].join('\n');
}
