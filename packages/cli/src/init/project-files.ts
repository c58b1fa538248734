/** Every file of a new project, by path: the templates filled in with the answers. */
import type { DependencySpecs } from './dependency-source.js';
import type { ScaffoldNames } from './scaffold-names.js';
import { dockerfile, dockerignore, gitignore } from './templates/container-files.js';
import { kindSchemaYaml } from './templates/kind-schema-yaml.js';
import { mainTs } from './templates/main-ts.js';
import { operatorTestTs } from './templates/operator-test-ts.js';
import { operatorTs } from './templates/operator-ts.js';
import { packageJson } from './templates/package-json.js';
import { readmeMd } from './templates/readme-md.js';
import { reconcilerTs } from './templates/reconciler-ts.js';
import { tsconfigJson } from './templates/tsconfig-json.js';

/** The hand-editable files (`kubeloop generate` then writes the CRD, the types and the manifests). */
export function projectFiles(n: ScaffoldNames, specs: DependencySpecs, tarballs: boolean): Map<string, string> {
  return new Map([
    ['package.json', packageJson(n, specs, tarballs)],
    ['tsconfig.json', tsconfigJson()],
    ['README.md', readmeMd(n)],
    ['.gitignore', gitignore()],
    ['.dockerignore', dockerignore()],
    ['Dockerfile', dockerfile(n)],
    [`kinds/${n.kindFile}.yaml`, kindSchemaYaml(n)],
    [`src/${n.kindFile}-reconciler.ts`, reconcilerTs(n)],
    ['src/operator.ts', operatorTs(n)],
    ['src/main.ts', mainTs(n)],
    ['src/operator.test.ts', operatorTestTs(n)],
  ]);
}
