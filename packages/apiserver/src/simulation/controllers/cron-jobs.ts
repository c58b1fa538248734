/**
 * kube-controller-manager's cronjob controller, on the simulation's clock: at each time its
 * `schedule` names (UTC), a CronJob creates the Job of its `jobTemplate` (`<name>-<minutes since the
 * epoch>`, annotated `batch.kubernetes.io/cronjob-scheduled-timestamp`, controlled by the CronJob),
 * unless `suspend`, unless the time was missed by more than `startingDeadlineSeconds`, and as
 * `concurrencyPolicy` says when a Job is still running (Allow: another; Forbid: skip; Replace:
 * delete the running one first). Only the most recent missed time runs, as upstream. Finished Jobs
 * beyond `successfulJobsHistoryLimit` / `failedJobsHistoryLimit` are deleted, oldest first.
 * `status.active`, `lastScheduleTime` and `lastSuccessfulTime` are kept. A `timeZone` other than UTC
 * is not simulated: such a CronJob is left alone, with a line in the server's log.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { StoredObject } from '../../storage/change-event.js';
import { storeKeyOf } from '../../types/resource-type.js';
import type { SimulatedController } from '../simulated-controller.js';
import { builtinType, storedAt } from '../simulation-context.js';
import type { SimulationContext } from '../simulation-context.js';
import { nextCronTime, parseCronSchedule } from './cron-schedule.js';
import { controlledBy } from './owned-pods.js';

interface CronJobSpec {
  schedule?: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  suspend?: boolean;
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
  jobTemplate?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
}

type CronJob = KubeObject & { spec?: CronJobSpec; status?: { active?: unknown[]; lastScheduleTime?: string; lastSuccessfulTime?: string } };
type Job = KubeObject & { status?: { conditions?: { type: string; status: string }[]; completionTime?: string; startTime?: string } };

const scheduledAnnotation = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

/** Runs every CronJob; keys are `namespace/name`. */
export function cronJobController(ctx: SimulationContext): SimulatedController {
  const cronJobType = builtinType(ctx, 'batch/v1', 'CronJob');
  const jobType = builtinType(ctx, 'batch/v1', 'Job');
  const cronJobs = storeKeyOf(cronJobType);
  const jobs = storeKeyOf(jobType);
  const warned = new Set<string>();
  /**
   * CronJob uid -> when the simulation first saw it, on its clock: the start of its schedule until it
   * has run once (upstream starts from `creationTimestamp`, which is wall-clock time, not simulated time).
   */
  const firstSeen = new Map<string, number>();

  return {
    name: 'cronjob',
    watches: [cronJobs, jobs],
    *keysFor(storeKey, event) {
      if (storeKey === cronJobs) {
        yield event.current.key;
        return;
      }
      const ref = event.current.object.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'CronJob');
      if (ref) yield `${event.current.object.metadata.namespace ?? ''}/${ref.name}`;
    },
    *initialKeys() {
      for (const cronJob of ctx.store.values(cronJobs)) yield cronJob.key;
    },
    async sync(key) {
      const stored = storedAt(ctx, cronJobType, key);
      if (!stored || stored.object.metadata.deletionTimestamp) return undefined;
      const cronJob = stored.object as CronJob;
      const spec = cronJob.spec ?? {};
      if (spec.timeZone !== undefined && spec.timeZone !== 'UTC' && spec.timeZone !== 'Etc/UTC') {
        if (!warned.has(key)) ctx.logger(`kubeloop-apiserver: simulated cronjob controller: ${key} has timeZone ${spec.timeZone}; only UTC is simulated, it is not scheduled`);
        warned.add(key);
        return undefined;
      }
      let schedule;
      try {
        schedule = parseCronSchedule(spec.schedule ?? '');
      } catch (err) {
        if (!warned.has(key)) ctx.logger(`kubeloop-apiserver: simulated cronjob controller: ${key} has an unparseable schedule: ${(err as Error).message}`);
        warned.add(key);
        return undefined;
      }
      const now = ctx.clock.now();
      const namespace = cronJob.metadata.namespace ?? '';
      const uid = cronJob.metadata.uid ?? '';
      let owned = controlledBy(ctx, jobType, namespace, uid);
      let lastScheduleTime = cronJob.status?.lastScheduleTime;

      // The most recent scheduled time not yet run, if it is not too late.
      if (!firstSeen.has(uid)) firstSeen.set(uid, now);
      const since = lastScheduleTime !== undefined ? Date.parse(lastScheduleTime) : (firstSeen.get(uid) ?? now);
      let due: number | undefined;
      for (let t = nextCronTime(schedule, since); t !== undefined && t <= now; t = nextCronTime(schedule, t)) due = t;
      const tooLate = due !== undefined && spec.startingDeadlineSeconds !== undefined && now - due > spec.startingDeadlineSeconds * 1000;
      if (due !== undefined && spec.suspend !== true && !tooLate) {
        const running = owned.filter((job) => !jobFinished(job));
        const policy = spec.concurrencyPolicy ?? 'Allow';
        if (policy === 'Replace') for (const job of running) await ctx.writes.delete(jobType, job);
        if (policy !== 'Forbid' || running.length === 0) {
          await ctx.writes.create(jobType, jobFor(cronJob, due));
          lastScheduleTime = new Date(due).toISOString().replace('.000Z', 'Z');
          owned = controlledBy(ctx, jobType, namespace, uid);
        }
      }

      owned = await pruneHistory(owned, spec);
      const active = owned.filter((job) => !jobFinished(job));
      const succeeded = owned.filter((job) => finishedAs(job, 'Complete')).map((job) => (job.object as Job).status?.completionTime).filter((t): t is string => t !== undefined);
      await ctx.writes.updateStatus(cronJobType, stored, (object) => {
        const target = object as CronJob;
        const status: NonNullable<CronJob['status']> = { ...target.status };
        if (active.length > 0) status.active = active.map((job) => ({ apiVersion: 'batch/v1', kind: 'Job', namespace, name: job.object.metadata.name, uid: job.object.metadata.uid, resourceVersion: job.object.metadata.resourceVersion }));
        else delete status.active;
        if (lastScheduleTime !== undefined) status.lastScheduleTime = lastScheduleTime;
        const lastSuccess = succeeded.sort().at(-1);
        if (lastSuccess !== undefined) status.lastSuccessfulTime = lastSuccess;
        target.status = status;
      });
      const next = nextCronTime(schedule, now);
      return next === undefined ? undefined : next - now;
    },
  };

  async function pruneHistory(owned: StoredObject[], spec: CronJobSpec): Promise<StoredObject[]> {
    const kept = new Set(owned);
    for (const [outcome, limit] of [
      ['Complete', spec.successfulJobsHistoryLimit ?? 3],
      ['Failed', spec.failedJobsHistoryLimit ?? 1],
    ] as const) {
      const finished = owned.filter((job) => finishedAs(job, outcome)).sort((a, b) => startOf(a).localeCompare(startOf(b)));
      for (const job of finished.slice(0, Math.max(0, finished.length - limit))) {
        await ctx.writes.delete(jobType, job);
        kept.delete(job);
      }
    }
    return owned.filter((job) => kept.has(job));
  }
}

function finishedAs(job: StoredObject, type: 'Complete' | 'Failed'): boolean {
  return (job.object as Job).status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;
}

function jobFinished(job: StoredObject): boolean {
  return finishedAs(job, 'Complete') || finishedAs(job, 'Failed');
}

function startOf(job: StoredObject): string {
  return job.object.metadata.annotations?.[scheduledAnnotation] ?? job.object.metadata.creationTimestamp ?? '';
}

/** The Job a CronJob runs at `scheduledMs`, named as upstream names it. */
function jobFor(cronJob: CronJob, scheduledMs: number): KubeObject {
  const template = cronJob.spec?.jobTemplate ?? {};
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `${cronJob.metadata.name}-${Math.floor(scheduledMs / 60_000)}`,
      namespace: cronJob.metadata.namespace,
      labels: { ...template.metadata?.labels },
      annotations: { ...template.metadata?.annotations, [scheduledAnnotation]: new Date(scheduledMs).toISOString().replace('.000Z', 'Z') },
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: cronJob.metadata.name, uid: cronJob.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: structuredClone(template.spec ?? {}),
  };
}
