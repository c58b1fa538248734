/** `package.json`: strict ESM, the scripts, kubeloop's packages, and the project's "kubeloop" section. */
import type { DependencySpecs } from '../dependency-source.js';
import type { ScaffoldNames } from '../scaffold-names.js';

/** The TypeScript and Node types the project compiles with: kubeloop's own. */
const TOOLCHAIN = { typescript: '~5.9.3', '@types/node': '^20.19.0' };

export function packageJson(n: ScaffoldNames, specs: DependencySpecs, tarballs: boolean): string {
  const manifest = {
    name: n.name,
    version: '0.1.0',
    private: true,
    description: `A Kubernetes operator for ${n.kind} (${n.plural}.${n.group}), made with kubeloop.`,
    type: 'module',
    engines: { node: '>=20.19' },
    scripts: {
      build: 'tsc -p .',
      start: 'node dist/main.js',
      test: 'tsc -p . && node --test --test-timeout=120000 dist/*.test.js',
      generate: 'kubeloop generate',
      'generate:check': 'kubeloop generate --check',
      manifests: 'kubeloop manifests',
      dev: 'kubeloop dev',
    },
    dependencies: { '@kubeloop/operator': specs['@kubeloop/operator'], '@kubeloop/resource': specs['@kubeloop/resource'] },
    devDependencies: {
      '@kubeloop/apiserver': specs['@kubeloop/apiserver'],
      // From tarballs nothing is on the registry: the CLI's own dependency must be one of the project's.
      ...(tarballs ? { '@kubeloop/codegen': specs['@kubeloop/codegen'] } : {}),
      kubeloop: specs.kubeloop,
      ...TOOLCHAIN,
    },
    kubeloop: {
      schemas: 'kinds',
      crds: 'crds',
      types: 'src/kinds',
      manifests: 'deploy/operator.yaml',
      deploy: { namespace: n.namespace, image: `${n.name}:latest`, replicas: 1 },
      owns: [{ group: 'apps', resource: 'deployments' }],
      reads: [],
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
