import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMapKind } from '@kubeloop/resource';
import type { FailNextRule, Faults } from '../http/faults.js';
import type { CrashLoopOptions, NodeNotReadyOptions, PodSelector, SlowStartOptions, WorkloadFault } from '../simulation/kubelet/workload-faults.js';
import { describeFaultSchedule, faultSchedule, isConvergenceError, startTestEnv } from './index.js';
import type { FaultSchedule, FaultStep, ScheduledFault } from './index.js';
import { runFaultSchedule } from './run-fault-schedule.js';

describe('faultSchedule', () => {
  test('one seed gives the same schedule every time; the printed options replay it', () => {
    const first = faultSchedule({ seed: 42, count: 30, resources: ['backups'] });
    assert.deepEqual(faultSchedule({ seed: 42, count: 30, resources: ['backups'] }), first);
    assert.deepEqual(faultSchedule(JSON.parse(JSON.stringify(first.options)) as FaultSchedule['options']), first);
    assert.notDeepEqual(faultSchedule({ seed: 43, count: 30, resources: ['backups'] }).faults, first.faults);
    assert.equal(first.faults.length, 30);
    assert.match(describeFaultSchedule(first), /^fault schedule seed 42; replay with faultSchedule\(\{"seed":42,"count":30,/);
    assert.equal(describeFaultSchedule(first).split('\n').length, 31);
  });

  test('pins the faults of a seed, so a seed reported on one machine replays on another', () => {
    assert.deepEqual(faultSchedule({ seed: 7, count: 3 }).faults, [
      { kind: 'dropWatches', mode: 'graceful', pauseMs: 54 },
      { kind: 'latency', ms: 58, pauseMs: 58 },
      { kind: 'latency', ms: 68, pauseMs: 6 },
    ]);
  });

  test('without a seed, draws one and records it', () => {
    const schedule = faultSchedule({ count: 5 });
    assert.ok(Number.isInteger(schedule.options.seed) && schedule.options.seed >= 0 && schedule.options.seed < 2 ** 32);
    assert.deepEqual(faultSchedule({ ...schedule.options }).faults, schedule.faults);
  });

  test('draws only the given kinds; by default every kind but restart', () => {
    const defaults = new Set(faultSchedule({ seed: 1, count: 200 }).faults.map((f) => f.kind));
    assert.deepEqual([...defaults].sort(), ['compact', 'dropWatches', 'failNext', 'latency']);
    const all = new Set(faultSchedule({ seed: 1, count: 200, kinds: ['dropWatches', 'compact', 'failNext', 'latency', 'restart'] }).faults.map((f) => f.kind));
    assert.equal(all.size, 5);
    const only = faultSchedule({ seed: 1, count: 50, kinds: ['failNext'], verbs: ['patch'], resources: ['backups'], maxPauseMs: 0 });
    for (const fault of only.faults) {
      assert.equal(fault.kind, 'failNext');
      assert.equal(fault.pauseMs, 0);
      if (fault.kind !== 'failNext') continue;
      assert.ok([500, 503, 429].includes(fault.status));
      assert.ok(fault.verb === undefined || fault.verb === 'patch');
      assert.ok(fault.resource === undefined || fault.resource === 'backups');
      assert.ok(fault.count >= 1 && fault.count <= 3);
      if (fault.status === 500) assert.equal(fault.retryAfterSeconds, undefined);
    }
    assert.ok(only.faults.some((f) => f.kind === 'failNext' && f.retryAfterSeconds === 1), 'some 503/429 carry Retry-After');
  });

  test('draws workload faults only when asked, from the given Pods and Nodes', () => {
    const pods: PodSelector[] = [{ image: 'nginx:bad' }, { namespace: 'shop', labelSelector: 'app=web' }];
    const schedule = faultSchedule({ seed: 3, count: 200, kinds: ['imagePullFailure', 'crashLoop', 'neverReady', 'slowStart', 'nodeNotReady'], pods, nodes: ['node-2'], maxPodStartMs: 5000 });
    assert.deepEqual(new Set(schedule.faults.map((f) => f.kind)), new Set(['imagePullFailure', 'crashLoop', 'neverReady', 'slowStart', 'nodeNotReady']));
    for (const fault of schedule.faults) {
      if (fault.kind === 'nodeNotReady') {
        assert.equal(fault.node, 'node-2');
        assert.ok(fault.status === 'Unknown' || fault.status === 'False');
      } else if (fault.kind === 'slowStart') {
        assert.ok(fault.podStartMs >= 1000 && fault.podStartMs <= 5000);
      }
      if ('pods' in fault) assert.ok(pods.includes(fault.pods));
    }
    assert.deepEqual(faultSchedule({ ...schedule.options }).faults, schedule.faults);
    assert.match(describeFaultSchedule(schedule), /nodeNotReady node-2 (Unknown|False), then \d+ ms/);
    assert.throws(() => faultSchedule({ kinds: ['crashLoop'], pods: [] }), RangeError);
    assert.throws(() => faultSchedule({ kinds: ['slowStart'], maxPodStartMs: 10 }), RangeError);
  });

  test('rejects options out of range with a RangeError', () => {
    assert.throws(() => faultSchedule({ count: -1 }), RangeError);
    assert.throws(() => faultSchedule({ seed: 1.5 }), RangeError);
    assert.throws(() => faultSchedule({ kinds: [] }), RangeError);
    assert.throws(() => faultSchedule({ kinds: ['explode' as never] }), /unknown kind "explode"/);
    assert.throws(() => faultSchedule({ verbs: [] }), RangeError);
    assert.throws(() => faultSchedule({ maxPauseMs: -5 }), RangeError);
    assert.throws(() => faultSchedule({ maxLatencyMs: 5 }), RangeError);
  });
});

/** Faults that record their calls: the unit test of how each scheduled fault is applied. */
class RecordingFaults implements Faults {
  readonly calls: string[] = [];
  dropWatches(options?: { midLine?: boolean; graceful?: boolean }): number {
    this.calls.push(`dropWatches ${JSON.stringify(options ?? {})}`);
    return 0;
  }
  failNext(rule: FailNextRule): void {
    this.calls.push(`failNext ${JSON.stringify(rule)}`);
  }
  injectWatchLines(): number {
    throw new Error('not scheduled');
  }
  compact(): void {
    this.calls.push('compact');
  }
  latency(ms: number): void {
    this.calls.push(`latency ${ms}`);
  }
  reset(): void {
    this.calls.push('reset');
  }
  imagePullFailure(pods?: PodSelector): WorkloadFault {
    return this.#workload(`imagePullFailure ${JSON.stringify(pods ?? {})}`);
  }
  crashLoop(options?: CrashLoopOptions): WorkloadFault {
    return this.#workload(`crashLoop ${JSON.stringify(options ?? {})}`);
  }
  neverReady(pods?: PodSelector): WorkloadFault {
    return this.#workload(`neverReady ${JSON.stringify(pods ?? {})}`);
  }
  slowStart(options: SlowStartOptions): WorkloadFault {
    return this.#workload(`slowStart ${JSON.stringify(options)}`);
  }
  nodeNotReady(node: string, options?: NodeNotReadyOptions): WorkloadFault {
    return this.#workload(`nodeNotReady ${node} ${JSON.stringify(options ?? {})}`);
  }
  #workload(call: string): WorkloadFault {
    this.calls.push(call);
    return { description: call, clear: () => this.calls.push(`clear ${call}`) };
  }
}

function scheduleOf(faults: ScheduledFault[]): FaultSchedule {
  return { options: { ...faultSchedule({ seed: 9, count: 0 }).options, count: faults.length }, faults };
}

describe('runFaultSchedule', () => {
  test('applies each kind of fault, clears it after its pause, then runs between() on a healthy server', async () => {
    const faults = new RecordingFaults();
    let restarts = 0;
    const target = {
      faults,
      restartable: true,
      restart: async () => {
        faults.calls.push('restart');
        restarts++;
      },
    };
    const steps: FaultStep[] = [];
    const schedule = scheduleOf([
      { kind: 'dropWatches', mode: 'reset', pauseMs: 0 },
      { kind: 'dropWatches', mode: 'midLine', pauseMs: 0 },
      { kind: 'dropWatches', mode: 'graceful', pauseMs: 0 },
      { kind: 'compact', pauseMs: 0 },
      { kind: 'failNext', verb: 'patch', resource: 'backups', status: 429, count: 2, retryAfterSeconds: 1, pauseMs: 0 },
      { kind: 'failNext', verb: undefined, resource: undefined, status: 500, count: 1, retryAfterSeconds: undefined, pauseMs: 0 },
      { kind: 'latency', ms: 40, pauseMs: 0 },
      { kind: 'restart', pauseMs: 0 },
    ]);
    await runFaultSchedule(target, schedule, {
      between: (step) => {
        steps.push(step);
        faults.calls.push(`between ${step.index}`);
      },
    });
    assert.deepEqual(faults.calls, [
      'dropWatches {}',
      'reset',
      'between 0',
      'dropWatches {"midLine":true}',
      'reset',
      'between 1',
      'dropWatches {"graceful":true}',
      'reset',
      'between 2',
      'compact',
      'dropWatches {}',
      'reset',
      'between 3',
      'failNext {"verb":"patch","resource":"backups","retryAfterSeconds":1,"status":429,"count":2}',
      'reset',
      'between 4',
      'failNext {"status":500,"count":1}',
      'reset',
      'between 5',
      'latency 40',
      'reset',
      'between 6',
      'restart',
      'reset',
      'between 7',
    ]);
    assert.equal(restarts, 1);
    assert.deepEqual(
      steps.map((s) => s.fault),
      schedule.faults,
    );
  });

  test('applies each workload fault and clears it with reset() after its pause', async () => {
    const faults = new RecordingFaults();
    const schedule = scheduleOf([
      { kind: 'imagePullFailure', pods: { image: 'nginx:bad' }, pauseMs: 0 },
      { kind: 'crashLoop', pods: { namespace: 'shop' }, exitCode: 137, pauseMs: 0 },
      { kind: 'neverReady', pods: {}, pauseMs: 0 },
      { kind: 'slowStart', pods: { labelSelector: 'app=web' }, podStartMs: 4000, pauseMs: 0 },
      { kind: 'nodeNotReady', node: 'node-3', status: 'False', pauseMs: 0 },
    ]);
    await runFaultSchedule({ faults, restartable: false, restart: () => Promise.reject(new Error('no restarts')) }, schedule);
    assert.deepEqual(faults.calls, [
      'imagePullFailure {"image":"nginx:bad"}',
      'reset',
      'crashLoop {"namespace":"shop","exitCode":137}',
      'reset',
      'neverReady {}',
      'reset',
      'slowStart {"labelSelector":"app=web","podStartMs":4000}',
      'reset',
      'nodeNotReady node-3 {"status":"False"}',
      'reset',
    ]);
  });

  test("between() gets a generator seeded from the schedule's seed: the test's own choices replay too", async () => {
    const draws = async (): Promise<number[]> => {
      const out: number[] = [];
      const schedule = faultSchedule({ seed: 5, count: 4, kinds: ['latency'], maxPauseMs: 0 });
      await runFaultSchedule({ faults: new RecordingFaults(), restartable: false, restart: () => Promise.reject(new Error('no')) }, schedule, {
        between: ({ rng }) => {
          out.push(rng.int(0, 1_000_000));
        },
      });
      return out;
    };
    const first = await draws();
    assert.deepEqual(await draws(), first);
    assert.equal(new Set(first).size, 4);
  });

  test("a failing between() rejects naming the seed and the fault it followed", async () => {
    const schedule = faultSchedule({ seed: 11, count: 3, kinds: ['latency'], maxPauseMs: 0 });
    const cause = new Error('write refused');
    await assert.rejects(
      runFaultSchedule({ faults: new RecordingFaults(), restartable: false, restart: () => Promise.resolve() }, schedule, {
        between: ({ index }) => {
          if (index === 1) throw cause;
        },
      }),
      (err: unknown) => err instanceof Error && /^fault schedule seed 11: between\(\) failed after fault 2 \(latency \d+ ms, then 0 ms\): write refused$/.test(err.message) && err.cause === cause,
    );
  });
});

describe('TestEnv with fault schedules', () => {
  test('restart() keeps the objects and the URL; clients reconnect', async () => {
    const env = await startTestEnv({ persistent: true });
    try {
      const configMaps = env.client(ConfigMapKind);
      await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'default' }, data: { a: '1' } });
      const url = env.url;
      const before = env.server;
      await env.restart();
      assert.notEqual(env.server, before, 'a new server');
      assert.equal(env.server.url, url);
      assert.deepEqual((await configMaps.get({ namespace: 'default', name: 'kept' })).data, { a: '1' });
      await Promise.all([env.restart(), env.restart()]); // one at a time, not two servers on one data directory
      assert.deepEqual((await configMaps.get({ namespace: 'default', name: 'kept' })).data, { a: '1' });
    } finally {
      await env.stop();
    }
  });

  test('restart() rejects for an environment in memory, and a schedule with a restart is refused before any fault', async () => {
    const env = await startTestEnv();
    try {
      await assert.rejects(env.restart(), /persistent: true/);
      const schedule = faultSchedule({ seed: 3, count: 4, kinds: ['latency', 'restart'] });
      assert.ok(schedule.faults.some((f) => f.kind === 'restart'));
      await assert.rejects(env.runFaultSchedule(schedule), /fault schedule seed 3 has a restart/);
    } finally {
      await env.stop();
    }
  });

  test('a compact fault cuts the watches and makes resuming from an older resourceVersion 410', async () => {
    const env = await startTestEnv();
    try {
      const configMaps = env.client(ConfigMapKind);
      const created = await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', namespace: 'default' } });
      const rv = created.metadata.resourceVersion!;
      const open = await fetch(`${env.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`);
      assert.equal(open.status, 200);
      await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c2', namespace: 'default' } });
      await env.runFaultSchedule(faultSchedule({ seed: 1, count: 1, kinds: ['compact'], maxPauseMs: 0 }));
      await open.text().catch(() => undefined); // the stream ends (the drop)
      const resumed = await (await fetch(`${env.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`)).text();
      const event = JSON.parse(resumed.split('\n')[0]!) as { type: string; object: { code: number } };
      assert.equal(event.type, 'ERROR');
      assert.equal(event.object.code, 410);
    } finally {
      await env.stop();
    }
  });

  test('converge() rejects with a ConvergenceError that names the seeds and lists the faults', async () => {
    const env = await startTestEnv({ persistent: true });
    try {
      const schedule = faultSchedule({ seed: 77, count: 3, kinds: ['dropWatches', 'restart'], maxPauseMs: 0 });
      await env.runFaultSchedule(schedule);
      assert.equal(await env.converge(() => 'done'), 'done');
      const failure = new Error('still 0 of 1 ready');
      await assert.rejects(
        env.converge(
          () => {
            throw failure;
          },
          { timeoutMs: 30, what: 'every Backup Ready' },
        ),
        (err: unknown) => {
          assert.ok(isConvergenceError(err));
          assert.deepEqual(err.seeds, [77]);
          assert.equal(err.cause, failure);
          assert.match(err.message, /^converge: every Backup Ready did not hold within 30 ms; last failure: still 0 of 1 ready\n/);
          assert.ok(err.message.includes(describeFaultSchedule(schedule)));
          return true;
        },
      );
    } finally {
      await env.stop();
    }
  });
});
