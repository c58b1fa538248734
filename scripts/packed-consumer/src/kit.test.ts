// The test kit under Vitest: no node:test anywhere.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ConfigMapKind } from '@kubeloop/resource';
import { eventually, faultSchedule, isConvergenceError, startTestEnv, waitFor } from '@kubeloop/apiserver/testing';
import type { TestEnv } from '@kubeloop/apiserver/testing';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv({ namespaces: ['kit'], persistent: true });
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

test('a seeded fault schedule, restarts included, runs under Vitest and converge() reports its seed', async () => {
  const configMaps = env.client(ConfigMapKind);
  const schedule = faultSchedule({ seed: 12, count: 4, kinds: ['dropWatches', 'failNext', 'restart'], maxPauseMs: 20 });
  await env.runFaultSchedule(schedule, {
    between: async ({ index }) => {
      await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `step-${index}`, namespace: 'kit' } });
    },
  });
  expect(await env.converge(async () => (await configMaps.list('kit')).items.filter((cm) => cm.metadata.name?.startsWith('step-')).length)).toBe(4);
  const failed = await env.converge(() => expect(1).toBe(2), { timeoutMs: 20 }).catch((error: unknown) => error);
  expect(isConvergenceError(failed) && failed.seeds).toEqual([12]);
});
