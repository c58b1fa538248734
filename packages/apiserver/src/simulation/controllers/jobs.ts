/**
 * kube-controller-manager's job controller: a Job keeps `parallelism` Pods running (never more than
 * the completions left), counts the Pods that succeed and fail, recreates failed ones after an
 * exponential backoff (10 s doubling, at most 6 minutes, on the simulation's clock), and finishes:
 * `Complete` (after `SuccessCriteriaMet`, reason `CompletionsReached`) once `completions` Pods
 * succeeded (or, without `completions`, once one succeeded and none is left running), or `Failed`
 * (after `FailureTarget`) past `backoffLimit` failures (`BackoffLimitExceeded`) or
 * `activeDeadlineSeconds` (`DeadlineExceeded`), deleting the Pods still running. `suspend` deletes
 * the running Pods and sets `Suspended`. Not simulated: Indexed completion, pod failure and success
 * policies, and the `job-tracking` finalizers (the counts are taken from the Pods that exist).
 */
import type { KubeObject } from '@kubeloop/resource';
import type { StoredObject } from '../../storage/change-event.js';
import { storeKeyOf } from '../../types/resource-type.js';
import { randomSuffix } from '../generated-names.js';
import type { SimulatedController } from '../simulated-controller.js';
import { builtinType, storedAt, timestampNow } from '../simulation-context.js';
import type { SimulationContext } from '../simulation-context.js';
import { controlledBy, podFinished, podReady, podStatus } from './owned-pods.js';

interface JobSpec {
  parallelism?: number;
  completions?: number;
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  suspend?: boolean;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
}

interface JobCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
}

interface JobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  ready?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
}

type Job = KubeObject & { spec?: JobSpec; status?: JobStatus };

const firstBackoffMs = 10_000;
const maxBackoffMs = 6 * 60_000;

/** Runs every Job; keys are `namespace/name`. */
export function jobController(ctx: SimulationContext): SimulatedController {
  const jobType = builtinType(ctx, 'batch/v1', 'Job');
  const podType = builtinType(ctx, 'v1', 'Pod');
  const jobs = storeKeyOf(jobType);
  const pods = storeKeyOf(podType);
  /** Job uid -> when its last counted failure was seen, and how many failures that was. */
  const failures = new Map<string, { count: number; at: number }>();

  return {
    name: 'job',
    watches: [jobs, pods],
    *keysFor(storeKey, event) {
      if (storeKey === jobs) {
        yield event.current.key;
        return;
      }
      const ref = event.current.object.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'Job');
      if (ref) yield `${event.current.object.metadata.namespace ?? ''}/${ref.name}`;
    },
    *initialKeys() {
      for (const job of ctx.store.values(jobs)) yield job.key;
    },
    async sync(key) {
      const stored = storedAt(ctx, jobType, key);
      if (!stored || stored.object.metadata.deletionTimestamp) return undefined;
      const job = stored.object as Job;
      const uid = job.metadata.uid ?? '';
      const namespace = job.metadata.namespace ?? '';
      const spec = job.spec ?? {};
      const owned = controlledBy(ctx, podType, namespace, uid);
      const running = owned.filter((pod) => !podFinished(pod) && !pod.object.metadata.deletionTimestamp);
      const succeeded = Math.max(job.status?.succeeded ?? 0, owned.filter((pod) => podStatus(pod).phase === 'Succeeded').length);
      const failed = Math.max(job.status?.failed ?? 0, owned.filter((pod) => podStatus(pod).phase === 'Failed').length);
      const now = ctx.clock.now();

      if (isFinished(job)) {
        for (const pod of running) await ctx.writes.delete(podType, pod);
        return undefined;
      }
      if (spec.suspend === true) {
        for (const pod of running) await ctx.writes.delete(podType, pod);
        await writeStatus(stored, { active: 0, ready: 0, succeeded, failed }, [condition(ctx, 'Suspended', 'JobSuspended', 'Job suspended')]);
        return undefined;
      }

      const startTime = job.status?.startTime ?? timestampNow(ctx);
      const deadlineMs = spec.activeDeadlineSeconds !== undefined ? Date.parse(startTime) + spec.activeDeadlineSeconds * 1000 : undefined;
      const failure =
        failed > (spec.backoffLimit ?? 6)
          ? { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }
          : deadlineMs !== undefined && now >= deadlineMs
            ? { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }
            : undefined;
      if (failure) {
        for (const pod of running) await ctx.writes.delete(podType, pod);
        await writeStatus(stored, { startTime, active: 0, ready: 0, succeeded, failed }, [
          condition(ctx, 'FailureTarget', failure.reason, failure.message),
          condition(ctx, 'Failed', failure.reason, failure.message),
        ]);
        return undefined;
      }

      const completions = spec.completions;
      const done = completions !== undefined ? succeeded >= completions : succeeded >= 1 && running.length === 0;
      if (done) {
        await writeStatus(stored, { startTime, completionTime: timestampNow(ctx), active: 0, ready: 0, succeeded, failed }, [
          condition(ctx, 'SuccessCriteriaMet', 'CompletionsReached', 'Reached expected number of succeeded pods'),
          condition(ctx, 'Complete', 'CompletionsReached', 'Reached expected number of succeeded pods'),
        ]);
        return undefined;
      }

      // Failed Pods are replaced after a backoff that doubles with each failure.
      const seen = failures.get(uid);
      if (failed > (seen?.count ?? 0)) failures.set(uid, { count: failed, at: now });
      const backoffUntil = failed > 0 ? (failures.get(uid)?.at ?? now) + Math.min(maxBackoffMs, firstBackoffMs * 2 ** (failed - 1)) : now;
      const parallelism = spec.parallelism ?? 1;
      const wanted = succeeded >= 1 && completions === undefined ? 0 : Math.min(parallelism, completions !== undefined ? completions - succeeded : parallelism);
      let active = running.length;
      if (active > wanted) {
        for (const pod of running.slice(wanted)) await ctx.writes.delete(podType, pod);
        active = wanted;
      } else if (active < wanted && now >= backoffUntil) {
        for (; active < wanted; active++) await ctx.writes.create(podType, podFor(job));
      }
      await writeStatus(stored, { startTime, active, ready: running.filter(podReady).length, succeeded, failed }, []);
      const waits = [active < wanted ? backoffUntil - now : undefined, deadlineMs !== undefined ? deadlineMs - now : undefined].filter((ms): ms is number => ms !== undefined && ms > 0);
      return waits.length > 0 ? Math.min(...waits) : undefined;
    },
  };

  async function writeStatus(stored: StoredObject, counts: Omit<JobStatus, 'conditions'>, added: readonly JobCondition[]): Promise<void> {
    await ctx.writes.updateStatus(jobType, stored, (object) => {
      const job = object as Job;
      const status: JobStatus = { ...job.status, ...counts };
      for (const field of ['active', 'ready', 'succeeded', 'failed'] as const) if (status[field] === 0 && field !== 'ready') delete status[field];
      const conditions = [...(status.conditions ?? [])];
      for (const next of added) {
        const index = conditions.findIndex((c) => c.type === next.type);
        if (index < 0) conditions.push(next);
        else if (conditions[index]?.status !== next.status || conditions[index]?.reason !== next.reason) conditions[index] = next;
      }
      if (added.every((c) => c.type !== 'Suspended')) {
        const suspended = conditions.findIndex((c) => c.type === 'Suspended' && c.status === 'True');
        if (suspended >= 0) conditions[suspended] = condition(ctx, 'Suspended', 'JobResumed', 'Job resumed', 'False');
      }
      if (conditions.length > 0) status.conditions = conditions;
      job.status = status;
    });
  }
}

function isFinished(job: Job): boolean {
  return job.status?.conditions?.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') === true;
}

function condition(ctx: SimulationContext, type: string, reason: string, message: string, status = 'True'): JobCondition {
  const now = timestampNow(ctx);
  return { type, status, lastProbeTime: now, lastTransitionTime: now, reason, message };
}

/** A new Pod of `job`: its template, its generated name, and the Job as its controller. */
function podFor(job: Job): KubeObject {
  const template = job.spec?.template ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${job.metadata.name}-${randomSuffix()}`,
      namespace: job.metadata.namespace,
      labels: { ...template.metadata?.labels },
      ...(template.metadata?.annotations && { annotations: { ...template.metadata.annotations } }),
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name, uid: job.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: structuredClone(template.spec ?? {}),
  };
}
