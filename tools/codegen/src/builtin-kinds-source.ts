/**
 * Where the built-in kinds come from: the embedded API server's own kind table and model data (read
 * from its compiled output in this repository; `tsc -b` builds it first), and the checked-in module
 * they generate in @kubeloop/resource.
 */
import { fileURLToPath } from 'node:url';
import { builtinKinds } from '../../../packages/apiserver/dist/builtin/builtin-kind-table.js';
import { kubernetesModels, modelsGeneratedFrom } from '../../../packages/apiserver/dist/builtin/kubernetes-models.generated.js';
import { generateBuiltinKinds } from './builtin-kinds.js';

/** The checked-in module (same depth from `src/` and `dist/`). */
export const BUILTIN_KINDS_MODULE = fileURLToPath(new URL('../../../packages/resource/src/kinds/builtin-workloads.generated.ts', import.meta.url));

/** The module as the server's data generates it now. */
export function currentBuiltinKindsModule(): string {
  return generateBuiltinKinds({
    models: kubernetesModels,
    kinds: builtinKinds,
    source: `the embedded API server's kind table and its Kubernetes models (@kubernetes/client-node ${modelsGeneratedFrom})`,
  });
}
