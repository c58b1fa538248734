/** Simulated Jobs: completions, parallelism, failures with backoff, backoffLimit, deadline, suspend. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '@kubeloop/resource';
import { startApiServer } from '../../api-server.js';
import type { ApiServer } from '../../api-server.js';
import { advanceSimulation } from '../../testing/simulated-time.js';
import { call } from '../../testing/test-client.js';

const jobsPath = '/apis/batch/v1/namespaces/default/jobs';
const podsPath = '/api/v1/namespaces/default/pods';

interface PodItem {
  metadata: { name: string; ownerReferences?: { name: string }[] };
  status?: { phase?: string };
}

describe('simulated Job controller', () => {
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
  let server: ApiServer;
  before(async () => {
    // No kubelet: the test decides how each Pod ends.
    server = await startApiServer({ simulate: { kubelet: false, clock } });
  });
  after(() => server.stop());

  const idle = (): Promise<void> => server.simulation?.whenIdle() ?? Promise.reject(new Error('no simulation'));

  async function job(name: string, spec: Record<string, unknown>): Promise<void> {
    const created = await call(server.url, 'POST', jobsPath, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name },
      spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] } } },
    });
    assert.equal(created.status, 201, created.text);
    await idle();
  }

  async function runningPods(jobName: string): Promise<PodItem[]> {
    const listed = await call(server.url, 'GET', `${podsPath}?labelSelector=job-name%3D${jobName}`);
    return (listed.body.items as PodItem[]).filter((pod) => pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed');
  }

  async function finish(pod: PodItem, phase: 'Succeeded' | 'Failed'): Promise<void> {
    const current = await call(server.url, 'GET', `${podsPath}/${pod.metadata.name}`);
    const written = await call(server.url, 'PUT', `${podsPath}/${pod.metadata.name}/status`, { ...current.body, status: { phase } });
    assert.equal(written.status, 200, written.text);
    await idle();
  }

  interface JobStatusView {
    active?: number;
    succeeded?: number;
    failed?: number;
    conditions?: { type: string; status: string; reason: string }[];
    completionTime?: string;
  }

  async function status(name: string): Promise<JobStatusView> {
    const read = await call(server.url, 'GET', `${jobsPath}/${name}`);
    return (read.body.status ?? {}) as JobStatusView;
  }

  test('completions 3 with parallelism 2: two Pods at a time, never more than the completions left, then Complete', async () => {
    await job('batch', { completions: 3, parallelism: 2 });
    let pods = await runningPods('batch');
    assert.equal(pods.length, 2);
    assert.match(pods[0]?.metadata.name ?? '', /^batch-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(pods[0]?.metadata.ownerReferences?.[0]?.name, 'batch');
    await finish(pods[0], 'Succeeded');
    await finish(pods[1]!, 'Succeeded');
    pods = await runningPods('batch');
    assert.equal(pods.length, 1, 'one completion is left: one Pod');
    assert.equal((await status('batch')).succeeded, 2);
    await finish(pods[0]!, 'Succeeded');
    const done = await status('batch');
    assert.equal(done.succeeded, 3);
    assert.equal(done.active, undefined);
    assert.deepEqual(
      done.conditions?.map((c) => [c.type, c.status, c.reason]),
      [
        ['SuccessCriteriaMet', 'True', 'CompletionsReached'],
        ['Complete', 'True', 'CompletionsReached'],
      ],
    );
    assert.equal(done.completionTime, '2026-01-01T00:00:00Z');
  });

  test('a failed Pod is replaced after 10 s, then 20 s; past backoffLimit the Job is Failed', async () => {
    await job('flaky', { backoffLimit: 1 });
    await finish((await runningPods('flaky'))[0]!, 'Failed');
    assert.equal((await runningPods('flaky')).length, 0, 'not replaced at once');
    await advanceSimulation({ server }, clock, 9_999);
    assert.equal((await runningPods('flaky')).length, 0, 'not before 10 s');
    await advanceSimulation({ server }, clock, 1);
    const second = await runningPods('flaky');
    assert.equal(second.length, 1, 'replaced after 10 s');
    await finish(second[0]!, 'Failed');
    const failed = await status('flaky');
    assert.equal(failed.failed, 2);
    assert.deepEqual(failed.conditions?.map((c) => [c.type, c.reason]), [
      ['FailureTarget', 'BackoffLimitExceeded'],
      ['Failed', 'BackoffLimitExceeded'],
    ]);
    await advanceSimulation({ server }, clock, 60_000);
    assert.equal((await runningPods('flaky')).length, 0, 'a failed Job starts nothing');
  });

  test('activeDeadlineSeconds fails the Job and deletes its running Pod; suspend deletes Pods until resumed', async () => {
    await job('slow', { activeDeadlineSeconds: 30 });
    assert.equal((await runningPods('slow')).length, 1);
    await advanceSimulation({ server }, clock, 30_000);
    assert.deepEqual((await status('slow')).conditions?.map((c) => [c.type, c.reason]), [
      ['FailureTarget', 'DeadlineExceeded'],
      ['Failed', 'DeadlineExceeded'],
    ]);
    assert.equal((await runningPods('slow')).length, 0);

    await job('paused', { suspend: true });
    assert.equal((await runningPods('paused')).length, 0);
    assert.deepEqual((await status('paused')).conditions?.map((c) => [c.type, c.status, c.reason]), [['Suspended', 'True', 'JobSuspended']]);
    const current = await call(server.url, 'GET', `${jobsPath}/paused`);
    assert.equal((await call(server.url, 'PUT', `${jobsPath}/paused`, { ...current.body, spec: { ...current.body.spec, suspend: false } })).status, 200);
    await idle();
    assert.equal((await runningPods('paused')).length, 1);
    assert.deepEqual((await status('paused')).conditions?.map((c) => [c.type, c.status, c.reason]), [['Suspended', 'False', 'JobResumed']]);
  });
});
