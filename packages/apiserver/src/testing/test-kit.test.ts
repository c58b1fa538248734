import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineKind, isApiError, isInvalid, isNetworkError, isServerError } from '@kubeloop/resource';
import type { CustomResourceDefinition } from '@kubeloop/resource';
import { eventually, runController, startTestEnv, waitFor } from './index.js';
import { widgetCrd } from './test-client.js';

const WidgetKind = defineKind<{ replicas?: number; color?: string }, { ready?: boolean }>({ group: 'example.com', version: 'v1', kind: 'Widget' });
const crd = widgetCrd() as unknown as CustomResourceDefinition;

describe('startTestEnv', () => {
  test('serves the given CRDs and namespaces, with typed clients and a kubeconfig file, until stop()', async () => {
    const env = await startTestEnv({ crds: [crd], namespaces: ['team-a'] });
    try {
      const widgets = env.client(WidgetKind);
      const created = await widgets.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'team-a' }, spec: { replicas: 2 } });
      assert.equal(created.metadata.namespace, 'team-a');
      assert.equal((await widgets.get({ namespace: 'team-a', name: 'w1' })).spec?.replicas, 2);
      assert.equal(readFileSync(env.kubeconfigPath, 'utf8'), env.kubeconfig);
      assert.match(env.kubeconfig, new RegExp(`server: ${env.url}`));
    } finally {
      await env.stop();
    }
    assert.equal(existsSync(env.kubeconfigPath), false, 'stop() removes the kubeconfig file');
    await assert.rejects(fetch(`${env.url}/api`), 'the server no longer answers');
    await env.stop(); // idempotent
  });

  test('rejects with the API error when a CRD is refused', async () => {
    const invalid = { ...crd, metadata: { name: 'wrong-name.example.com' } };
    await assert.rejects(startTestEnv({ crds: [invalid] }), (err: unknown) => isInvalid(err));
  });

  test('exposes the server faults to drive by hand: a failed request, then recovery', async () => {
    const env = await startTestEnv({ crds: [crd] });
    try {
      const widgets = env.client(WidgetKind);
      env.faults.failNext({ verb: 'create', resource: 'widgets', status: 503 });
      const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2', namespace: 'default' } };
      await assert.rejects(widgets.create(widget), (err: unknown) => isServerError(err) && isApiError(err) && err.status === 503);
      assert.equal((await widgets.create(widget)).metadata.name, 'w2');
    } finally {
      await env.stop();
    }
  });

  test('ensureCrd() installs one more CRD later', async () => {
    const env = await startTestEnv();
    try {
      await assert.rejects(env.client(WidgetKind).list('default'), (err: unknown) => isApiError(err) && err.status === 404);
      await env.ensureCrd(crd);
      assert.deepEqual((await env.client(WidgetKind).list('default')).items, []);
    } finally {
      await env.stop();
    }
    await assert.rejects(env.client(WidgetKind).list('default'), (err: unknown) => isNetworkError(err));
  });
});

describe('eventually', () => {
  test('retries a failing assertion until it passes and resolves with its value', async () => {
    let calls = 0;
    const value = await eventually(() => {
      calls++;
      assert.ok(calls >= 3, `only ${calls} calls`);
      return calls;
    }, { intervalMs: 1 });
    assert.equal(value, 3);
  });

  test('times out with what it waited for and the last failure as the cause', async () => {
    const failure = new Error('still 0 ready');
    await assert.rejects(
      eventually(() => {
        throw failure;
      }, { timeoutMs: 30, intervalMs: 5, what: 'the Ready condition' }),
      (err: unknown) => err instanceof Error && /the Ready condition did not hold within 30 ms; last failure: still 0 ready/.test(err.message) && err.cause === failure,
    );
  });

  test('stops when its signal aborts', async () => {
    const abort = new AbortController();
    abort.abort(new Error('test over'));
    await assert.rejects(eventually(() => assert.fail('never'), { signal: abort.signal }), /test over/);
  });
});

describe('waitFor', () => {
  test('resolves with the first truthy value', async () => {
    let n = 0;
    assert.equal(await waitFor(() => (++n >= 2 ? `ready after ${n}` : undefined), { intervalMs: 1 }), 'ready after 2');
  });

  test('rejects at once when the condition throws', async () => {
    let calls = 0;
    await assert.rejects(
      waitFor(() => {
        calls++;
        throw new Error('broken condition');
      }),
      /broken condition/,
    );
    assert.equal(calls, 1);
  });

  test('times out naming what it waited for', async () => {
    await assert.rejects(waitFor(() => false, { timeoutMs: 20, intervalMs: 5, what: 'w1 to exist' }), /waitFor: w1 to exist not met within 20 ms/);
  });
});

describe('runController', () => {
  test('runs until stopped: the stop function aborts the signal and waits for run() to return', async () => {
    const events: string[] = [];
    const stop = runController({
      run: async (signal) => {
        events.push('started');
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        await Promise.resolve();
        events.push('returned');
      },
    });
    assert.deepEqual(events, ['started']);
    await stop();
    assert.deepEqual(events, ['started', 'returned']);
    assert.equal(stop(), stop(), 'the same promise every time');
  });

  test('an early failure of run() is not lost: stop() rejects with it', async () => {
    const failure = new Error('informer misconfigured');
    const stop = runController({ run: () => Promise.reject(failure) });
    await assert.rejects(stop(), (err: unknown) => err === failure);
  });
});

describe('the test kit', () => {
  test('imports no test runner, so node:test, Vitest and Jest can all use it', () => {
    const dir = fileURLToPath(new URL('.', import.meta.url));
    const kitFiles = readdirSync(dir).filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith('.d.ts') && !f.includes('.test.') && !f.startsWith('test-client.'));
    assert.ok(kitFiles.length >= 4, `kit files: ${kitFiles.join(', ')}`);
    for (const file of kitFiles) {
      const text = readFileSync(`${dir}/${file}`, 'utf8');
      assert.doesNotMatch(text, /from ['"](node:test|vitest|@jest\/globals|jest|mocha)['"]/, file);
    }
  });
});
