// The test kit under Vitest: no node:test anywhere.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ConfigMapKind } from '@kubeloop/resource';
import { eventually, startTestEnv, waitFor } from '@kubeloop/apiserver/testing';
import type { TestEnv } from '@kubeloop/apiserver/testing';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv({ namespaces: ['kit'] });
});
afterAll(async () => {
  await env.stop();
});

test('startTestEnv, a typed client, eventually and waitFor work under Vitest', async () => {
  const configMaps = env.client(ConfigMapKind);
  await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'vitest', namespace: 'kit' }, data: { runner: 'vitest' } });
  const found = await eventually(() => configMaps.get({ namespace: 'kit', name: 'vitest' }));
  expect(found.data).toEqual({ runner: 'vitest' });
  expect(await waitFor(() => env.faults.dropWatches() >= 0)).toBe(true);
});
