/** Simulated CronJobs on a virtual clock: Jobs at each scheduled time, concurrency policies, history limits, suspend. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '@kubeloop/resource';
import { startApiServer } from '../../api-server.js';
import type { ApiServer } from '../../api-server.js';
import { advanceSimulation } from '../../testing/simulated-time.js';
import { call } from '../../testing/test-client.js';

const cronJobsPath = '/apis/batch/v1/namespaces/default/cronjobs';
const jobsPath = '/apis/batch/v1/namespaces/default/jobs';

interface JobItem {
  metadata: { name: string; annotations?: Record<string, string>; ownerReferences?: { name: string }[] };
}

describe('simulated CronJob controller', () => {
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:30Z'));
  let server: ApiServer;
  before(async () => {
    server = await startApiServer({ simulate: { kubelet: false, clock } });
  });
  after(() => server.stop());

  async function cronJob(name: string, spec: Record<string, unknown>): Promise<void> {
    const created = await call(server.url, 'POST', cronJobsPath, {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name },
      spec: { ...spec, jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'tick', image: 'busybox' }] } } } } },
    });
    assert.equal(created.status, 201, created.text);
    await server.simulation?.whenIdle();
  }

  async function jobsOf(name: string): Promise<JobItem[]> {
    const listed = await call(server.url, 'GET', jobsPath);
    return (listed.body.items as JobItem[]).filter((job) => job.metadata.ownerReferences?.[0]?.name === name).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  async function complete(job: JobItem): Promise<void> {
    const current = await call(server.url, 'GET', `${jobsPath}/${job.metadata.name}`);
    const done = { conditions: [{ type: 'Complete', status: 'True' }], completionTime: new Date(clock.now()).toISOString().replace('.000Z', 'Z') };
    assert.equal((await call(server.url, 'PUT', `${jobsPath}/${job.metadata.name}/status`, { ...current.body, status: done })).status, 200);
    await server.simulation?.whenIdle();
  }

  test('a Job at each scheduled minute, named by the minute, with the scheduled timestamp; status follows', async () => {
    await cronJob('tick', { schedule: '*/2 * * * *', concurrencyPolicy: 'Allow' });
    assert.deepEqual(await jobsOf('tick'), [], 'nothing before the first scheduled time');
    await advanceSimulation({ server }, clock, 90_000); // 00:02:00
    const jobs = await jobsOf('tick');
    assert.deepEqual(jobs.map((j) => j.metadata.name), [`tick-${Date.parse('2026-01-01T00:02:00Z') / 60_000}`]);
    assert.equal(jobs[0]?.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2026-01-01T00:02:00Z');
    const status = (await call(server.url, 'GET', `${cronJobsPath}/tick`)).body.status;
    assert.equal(status.lastScheduleTime, '2026-01-01T00:02:00Z');
    assert.deepEqual(status.active.map((ref: { name: string }) => ref.name), [jobs[0]?.metadata.name]);
    await advanceSimulation({ server }, clock, 240_000); // 00:06:00
    assert.equal((await jobsOf('tick')).length, 3, 'Allow runs the next ones beside the running one');
    assert.equal((await call(server.url, 'DELETE', `${cronJobsPath}/tick`)).status, 200);
  });

  test('Forbid skips a time while a Job runs; Replace deletes the running Job; suspend stops scheduling', async () => {
    await cronJob('solo', { schedule: '* * * * *', concurrencyPolicy: 'Forbid' });
    await advanceSimulation({ server }, clock, 60_000);
    assert.equal((await jobsOf('solo')).length, 1);
    await advanceSimulation({ server }, clock, 60_000);
    assert.equal((await jobsOf('solo')).length, 1, 'Forbid: the second time is skipped while the first runs');
    await complete((await jobsOf('solo'))[0]!);
    await advanceSimulation({ server }, clock, 60_000);
    assert.equal((await jobsOf('solo')).length, 2, 'runs again once the first finished');

    await cronJob('fresh', { schedule: '* * * * *', concurrencyPolicy: 'Replace' });
    await advanceSimulation({ server }, clock, 60_000);
    const first = (await jobsOf('fresh')).map((j) => j.metadata.name);
    await advanceSimulation({ server }, clock, 60_000);
    const second = (await jobsOf('fresh')).map((j) => j.metadata.name);
    assert.equal(second.length, 1, 'Replace keeps one');
    assert.notDeepEqual(second, first);

    const current = await call(server.url, 'GET', `${cronJobsPath}/fresh`);
    assert.equal((await call(server.url, 'PUT', `${cronJobsPath}/fresh`, { ...current.body, spec: { ...current.body.spec, suspend: true } })).status, 200);
    await advanceSimulation({ server }, clock, 180_000);
    assert.deepEqual((await jobsOf('fresh')).map((j) => j.metadata.name), second, 'suspended: no new Job');
  });

  test('successful Jobs beyond successfulJobsHistoryLimit are deleted, oldest first', async () => {
    await cronJob('history', { schedule: '* * * * *', successfulJobsHistoryLimit: 2 });
    for (let i = 0; i < 4; i++) {
      await advanceSimulation({ server }, clock, 60_000);
      for (const job of await jobsOf('history')) await complete(job);
    }
    await advanceSimulation({ server }, clock, 1_000);
    const kept = await jobsOf('history');
    assert.equal(kept.length, 2);
    const minutes = kept.map((j) => Number(j.metadata.name.split('-').at(-1)));
    assert.equal(minutes[1]! - minutes[0]!, 1, 'the two newest are kept');
  });
});
