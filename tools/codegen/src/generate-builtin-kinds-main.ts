/**
 * `npm run generate:builtin-kinds`: writes packages/resource/src/kinds/builtin-workloads.generated.ts
 * from the embedded API server's data (run it after the server's kind table or models change;
 * `builtin-kinds.test.ts` fails until then).
 */
import { writeFileSync } from 'node:fs';
import { BUILTIN_KINDS_MODULE, currentBuiltinKindsModule } from './builtin-kinds-source.js';

writeFileSync(BUILTIN_KINDS_MODULE, currentBuiltinKindsModule());
console.log(`wrote ${BUILTIN_KINDS_MODULE}`);
