/** `src/operator.test.ts`: the operator's tests with the test kit: happy path, delete through the finalizer, seeded faults. */
import type { ScaffoldNames } from '../scaffold-names.js';

export function operatorTestTs(n: ScaffoldNames): string {
  const { kind, one, many, kindFile, pascal } = n;
  const ns = 'tests';
  return `/**
 * The operator against the embedded API server with the test kit (@kubeloop/apiserver/testing): the owned
 * Deployment and Ready, a delete through the finalizer, and convergence through a seeded fault schedule with
 * a server restart. The tests play the kubelet (the embedded server runs no controllers): they set a
 * Deployment's ready replicas themselves, and the ${kind} turns Ready because \`owns\` hears of it.
 * A failing schedule names its seed: rerun it with FAULT_SEED=<seed> npm test.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DeploymentKind, isNotFound } from '@kubeloop/resource';
import { JitteredExponentialBackoff, exponentialBackoffRetryPolicy, noopLogger } from '@kubeloop/operator';
import { eventually, faultSchedule, runController, startTestEnv } from '@kubeloop/apiserver/testing';
import type { StopController, TestEnv } from '@kubeloop/apiserver/testing';
import { ${kind}Crd, ${kind}Kind } from './kinds/${kindFile}.js';
import type { ${kind}, ${kind}Spec } from './kinds/${kindFile}.js';
import { FINALIZER, create${pascal} } from './operator.js';
import { isReady } from './${kindFile}-reconciler.js';

describe('the ${kind} operator', () => {
  let env: TestEnv;
  let stop: StopController;
  /** uid -> times \`cleanUp\` ran for it. */
  const cleanedUp = new Map<string, number>();

  before(async () => {
    env = await startTestEnv({ crds: [${kind}Crd], namespaces: ['${ns}'], persistent: true });
    const operator = create${pascal}({
      transport: env.transport,
      namespace: '${ns}',
      retryPolicy: exponentialBackoffRetryPolicy(50, 10),
      informerBackoff: new JitteredExponentialBackoff({ initialMs: 20, maxMs: 500 }),
      logger: noopLogger,
      cleanUp: async (${one}) => {
        const uid = ${one}.metadata.uid ?? '';
        cleanedUp.set(uid, (cleanedUp.get(uid) ?? 0) + 1);
      },
    });
    stop = runController(operator);
  });

  after(async () => {
    await stop();
    await env.stop();
  });

  const ${one}Named = (name: string, spec: ${kind}Spec): ${kind} => ({ apiVersion: ${kind}Kind.apiVersion, kind: ${kind}Kind.kind, metadata: { name, namespace: '${ns}' }, spec });

  /** The kubelet's part: the Deployment of \`name\` reports its replicas ready. */
  async function podsReady(name: string): Promise<void> {
    const deployments = env.client(DeploymentKind);
    const deployment = await eventually(() => deployments.get({ namespace: '${ns}', name }));
    await deployments.patchStatus({ namespace: '${ns}', name }, { replicas: deployment.spec?.replicas, readyReplicas: deployment.spec?.replicas });
  }

  test('a ${kind} gets a Deployment it owns, and is Ready once the Deployment’s replicas are', async () => {
    const ${many} = env.client(${kind}Kind);
    const created = await ${many}.create(${one}Named('first', { image: 'nginx:1.27', replicas: 2 }));

    const deployment = await eventually(() => env.client(DeploymentKind).get({ namespace: '${ns}', name: 'first' }));
    assert.deepEqual(deployment.spec?.template.spec?.containers.map((c) => c.image), ['nginx:1.27']);
    assert.equal(deployment.metadata.ownerReferences?.[0]?.uid, created.metadata.uid);
    const waiting = await eventually(async () => {
      const current = await ${many}.get({ namespace: '${ns}', name: 'first' });
      assert.equal(current.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'WaitingForReplicas');
      return current;
    });
    assert.ok(waiting.metadata.finalizers?.includes(FINALIZER), 'the finalizer is on');

    await podsReady('first');
    await eventually(async () => {
      const current = await ${many}.get({ namespace: '${ns}', name: 'first' });
      assert.ok(isReady(current), 'Ready');
      assert.equal(current.status?.readyReplicas, 2);
    });
  });

  test('deleting a ${kind} runs its cleanup once, then the finalizer goes and the Deployment is garbage-collected', async () => {
    const ${many} = env.client(${kind}Kind);
    const created = await ${many}.create(${one}Named('old', { image: 'nginx:1.27', replicas: 1 }));
    await eventually(async () => assert.ok((await ${many}.get({ namespace: '${ns}', name: 'old' })).metadata.finalizers?.includes(FINALIZER)));
    await eventually(() => env.client(DeploymentKind).get({ namespace: '${ns}', name: 'old' }));
    await ${many}.delete({ namespace: '${ns}', name: 'old' });
    await eventually(async () => {
      await assert.rejects(${many}.get({ namespace: '${ns}', name: 'old' }), isNotFound);
      await assert.rejects(env.client(DeploymentKind).get({ namespace: '${ns}', name: 'old' }), isNotFound);
    });
    assert.equal(cleanedUp.get(created.metadata.uid ?? ''), 1);
  });

  test('it converges through a seeded fault schedule with a server restart', async () => {
    const ${many} = env.client(${kind}Kind);
    const names = ['alpha', 'beta', 'gamma'];
    const schedule = faultSchedule({
      seed: Number(process.env['FAULT_SEED'] ?? 2511),
      count: 8,
      kinds: ['dropWatches', 'compact', 'failNext', 'latency', 'restart'],
      resources: ['${n.plural}', 'deployments'],
    });
    await env.runFaultSchedule(schedule, {
      between: async ({ rng }) => {
        const name = rng.pick(names);
        const image = \`nginx:1.\${rng.int(20, 29)}\`;
        try {
          await ${many}.patch({ namespace: '${ns}', name }, { merge: { spec: { image } } });
        } catch (error) {
          if (!isNotFound(error)) throw error;
          await ${many}.create(${one}Named(name, { image, replicas: 1 }));
        }
      },
    });
    await env.converge(
      async () => {
        for (const name of names) {
          const current = await ${many}.get({ namespace: '${ns}', name }).catch(() => undefined);
          if (current === undefined) continue;
          await podsReady(name);
          const deployment = await env.client(DeploymentKind).get({ namespace: '${ns}', name });
          assert.deepEqual(deployment.spec?.template.spec?.containers.map((c) => c.image), [current.spec?.image]);
          assert.ok(isReady(await ${many}.get({ namespace: '${ns}', name })), \`\${name} Ready\`);
        }
      },
      { timeoutMs: 30_000, what: 'every ${kind} with its Deployment and Ready' },
    );
  });
});
`;
}
