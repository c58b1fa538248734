import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kubeloop/resource';
import { eventually } from '@kubeloop/apiserver/testing';
import { Counter } from 'prom-client';
import { VirtualClock } from '../clock.js';
import { runOperator, shutdownSignal } from './graceful-shutdown.js';
import type { RunOperatorLeaderElection, RunnableOperator } from './graceful-shutdown.js';
import type { LeaderLease, LeaseClient } from './leader-elector.js';
import { noopLogger } from '../observability/logger.js';
import { OperatorServer } from './operator-server.js';
import { waitFor } from '../testing/fake-informer.js';

/** An operator whose one in-flight reconcile takes `windDown` to finish after the signal aborts. */
function slowOperator(windDown: () => Promise<void>): { run(signal: AbortSignal): Promise<void>; log: string[] } {
  const log: string[] = [];
  return {
    log,
    run: async (signal) => {
      log.push('started');
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      log.push('stopping');
      await windDown();
      log.push('in-flight reconcile finished');
    },
  };
}

/** A lease store that accepts every write, checking resourceVersions. */
function memoryLeases(): LeaseClient & { lease: LeaderLease | undefined } {
  let rv = 0;
  const store: LeaseClient & { lease: LeaderLease | undefined } = {
    lease: undefined,
    get: async () => {
      if (!store.lease) throw new ApiError({ status: 404 });
      return structuredClone(store.lease);
    },
    create: async (object) => {
      if (store.lease) throw new ApiError({ status: 409, reason: 'AlreadyExists' });
      store.lease = { ...object, metadata: { ...object.metadata, resourceVersion: String(++rv) } };
      return structuredClone(store.lease);
    },
    update: async (object) => {
      if (object.metadata.resourceVersion !== store.lease?.metadata.resourceVersion) throw new ApiError({ status: 409, reason: 'Conflict' });
      store.lease = { ...object, metadata: { ...object.metadata, resourceVersion: String(++rv) } };
      return structuredClone(store.lease);
    },
  };
  return store;
}

/**
 * Runs `operator` with leader election and warm-up as "me", a follower of "other", who holds the
 * lease for an hour; `server` gets runOperator's checks.
 */
function runWarmFollower(operator: RunnableOperator, server: OperatorServer, leaderElection: Pick<RunOperatorLeaderElection, 'warmupGatesReadiness'> = {}) {
  const leases = memoryLeases();
  leases.lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'op', namespace: 'default', resourceVersion: '1' }, spec: { holderIdentity: 'other', leaseDurationSeconds: 3600 } };
  const stop = new AbortController();
  const result = runOperator({
    operator,
    server,
    signal: stop.signal,
    logger: noopLogger,
    leaderElection: { client: leases, lease: { namespace: 'default', name: 'op' }, identity: 'me', warmup: true, ...leaderElection },
  });
  return { stop, result };
}

describe('shutdownSignal', () => {
  test('the first signal aborts, the second forces an exit, and dispose removes the listeners', () => {
    const exits: number[] = [];
    const seen: string[] = [];
    const before = process.listenerCount('SIGUSR2');
    const handle = shutdownSignal({ signals: ['SIGUSR2'], exit: (code) => exits.push(code), onSignal: (sig, n) => seen.push(`${sig}#${n}`) });
    assert.equal(process.listenerCount('SIGUSR2'), before + 1);
    assert.equal(handle.signal.aborted, false);
    process.emit('SIGUSR2', 'SIGUSR2');
    assert.equal(handle.signal.aborted, true);
    assert.deepEqual(exits, []);
    process.emit('SIGUSR2', 'SIGUSR2');
    assert.deepEqual(exits, [130]);
    assert.deepEqual(seen, ['SIGUSR2#1', 'SIGUSR2#2']);
    handle.dispose();
    assert.equal(process.listenerCount('SIGUSR2'), before);
  });
});

describe('runOperator', () => {
  const servers: OperatorServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  test('a shutdown waits for the in-flight reconcile and exits 0', async () => {
    let finish!: () => void;
    const operator = slowOperator(() => new Promise<void>((resolve) => (finish = resolve)));
    const stop = new AbortController();
    let settled = false;
    const result = runOperator({ operator, signal: stop.signal, logger: noopLogger }).then((r) => {
      settled = true;
      return r;
    });
    stop.abort();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'still finishing the in-flight reconcile');
    finish();
    assert.deepEqual(await result, { exitCode: 0 });
    assert.deepEqual(operator.log, ['started', 'stopping', 'in-flight reconcile finished']);
  });

  test('an operator failure resolves with exit code 1 and the error', async () => {
    const result = await runOperator({
      operator: { run: async () => Promise.reject(new Error('informer misconfigured')) },
      signal: new AbortController().signal,
      logger: noopLogger,
    });
    assert.equal(result.exitCode, 1);
    assert.match(String(result.error), /informer misconfigured/);
  });

  test('a shutdown that overruns its deadline gives up with exit code 1', async () => {
    const clock = new VirtualClock();
    const operator = slowOperator(() => new Promise<void>(() => undefined));
    const stop = new AbortController();
    const result = runOperator({ operator, signal: stop.signal, logger: noopLogger, clock, shutdownDeadlineMs: 5_000 });
    stop.abort();
    await clock.advance(4_999);
    assert.equal(clock.pendingTimers(), 1);
    await clock.advance(1);
    const { exitCode } = await result;
    assert.equal(exitCode, 1);
  });

  test('the server gets the operator collectors and readiness follows hasSynced', async () => {
    const counter = new Counter({ name: 'runtime_test_events_total', help: 'Events.', registers: [] });
    const server = new OperatorServer({ host: '127.0.0.1', port: 0, collectDefaultMetrics: false });
    servers.push(server);
    let synced = false;
    const stop = new AbortController();
    const operator = { ...slowOperator(async () => undefined), prometheusCollectors: () => [counter] };
    const result = runOperator({ operator, server, hasSynced: () => synced, signal: stop.signal, logger: noopLogger });
    await waitFor(() => server.isListening());
    const url = server.url;
    assert.equal((await fetch(`${url}/readyz`)).status, 500);
    synced = true;
    assert.equal((await fetch(`${url}/readyz`)).status, 200);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    assert.match(await (await fetch(`${url}/metrics`)).text(), /runtime_test_events_total 0/);
    stop.abort();
    assert.equal((await result).exitCode, 0);
    assert.equal(server.isListening(), false, 'a server started by runOperator is stopped by it');
  });

  test('with warmup a follower warms the operator before leading, and a warm-up failure turns liveness red', async () => {
    const server = new OperatorServer({ host: '127.0.0.1', port: 0, collectDefaultMetrics: false });
    servers.push(server);
    const warmUps: AbortSignal[] = [];
    const operator = {
      ...slowOperator(async () => undefined),
      warmUp: async (signal: AbortSignal) => {
        warmUps.push(signal);
        throw new Error('informer: forbidden');
      },
    };
    const { stop, result } = runWarmFollower(operator, server);
    await waitFor(() => server.isListening() && warmUps.length === 1);
    assert.equal(warmUps[0], stop.signal, 'warmed with the process signal, before leading');
    assert.deepEqual(operator.log, [], 'not run while following');
    const healthz = await fetch(`${server.url}/healthz?verbose`);
    assert.equal(healthz.status, 500);
    assert.match(await healthz.text(), /operator failed: informer: forbidden/);
    stop.abort();
    const { exitCode, error } = await result;
    assert.equal(exitCode, 1, 'a failed warm-up is a failed run');
    assert.match(String(error), /informer: forbidden/);
  });

  test('with warmup a follower is not ready until its caches have synced, and ready after; warmupGatesReadiness false opts out', async () => {
    for (const warmupGatesReadiness of [undefined, false]) {
      const server = new OperatorServer({ host: '127.0.0.1', port: 0, collectDefaultMetrics: false });
      servers.push(server);
      let cachesSynced = false;
      const operator = {
        ...slowOperator(async () => undefined),
        warmUp: (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
        cachesSynced: () => cachesSynced,
        hasSynced: () => false,
      };
      const { stop, result } = runWarmFollower(operator, server, { warmupGatesReadiness });
      await waitFor(() => server.isListening());
      const readyz = async (): Promise<{ status: number; text: string }> => {
        const response = await fetch(`${server.url}/readyz?verbose`);
        return { status: response.status, text: await response.text() };
      };
      // Once the lease was read, only the caches decide.
      const following = await eventually(async () => {
        const ready = await readyz();
        assert.doesNotMatch(ready.text, /leader not known/);
        return ready;
      });
      if (warmupGatesReadiness === false) {
        assert.equal(following.status, 200, 'opted out: a follower is ready once the lease was read');
      } else {
        assert.equal(following.status, 500, 'a cold follower is not ready');
        assert.match(following.text, /warm-up: informer caches have not synced yet/);
        cachesSynced = true;
        assert.equal((await readyz()).status, 200, 'a warm follower is ready');
      }
      assert.deepEqual(operator.log, [], 'still following');
      stop.abort();
      assert.deepEqual(await result, { exitCode: 0, leaderElection: 'stopped' });
    }
  });

  test('with leader election the operator runs while leading and the lease is released after it stopped', async () => {
    const leases = memoryLeases();
    let finish!: () => void;
    const operator = slowOperator(
      () =>
        new Promise<void>((resolve) => {
          finish = resolve;
        }),
    );
    const stop = new AbortController();
    const result = runOperator({
      operator,
      signal: stop.signal,
      logger: noopLogger,
      leaderElection: { client: leases, lease: { namespace: 'default', name: 'op' }, identity: 'me' },
    });
    await waitFor(() => operator.log.length > 0);
    assert.deepEqual(operator.log, ['started']);
    assert.equal(leases.lease?.spec?.holderIdentity, 'me');
    stop.abort();
    // The operator has seen the abort and is winding down: the lease must still be held.
    await waitFor(() => operator.log.includes('stopping'));
    assert.equal(leases.lease?.spec?.holderIdentity, 'me', 'held while the reconcile finishes');
    finish();
    assert.deepEqual(await result, { exitCode: 0, leaderElection: 'stopped' });
    assert.equal(leases.lease?.spec?.holderIdentity, '');
  });
});
