/**
 * What a Website's Deployment says about its health, read as `kubectl rollout status` reads it, and
 * why it is not healthy when a Pod says so: the first Pod whose container waits for a reason that
 * will not fix itself (an image that cannot be pulled, a crash loop, a bad configuration).
 */
import type { Deployment, Pod } from '@kubeloop/resource';

/** Container waiting reasons that mean the Pod will not become Ready on its own. */
const failingReasons = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'CrashLoopBackOff', 'CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

/** A Deployment's rollout, as `kubectl rollout status` judges it. */
export interface RolloutState {
  /** Every replica is updated and available, and the controller has seen the current generation. */
  readonly complete: boolean;
  /** `3 of 4 replicas available`. */
  readonly summary: string;
  /** The rollout gave up (`Progressing` False, `ProgressDeadlineExceeded`). */
  readonly stalled: boolean;
}

/** The rollout state of `deployment` (as applied or read). */
export function rolloutState(deployment: Deployment): RolloutState {
  const wanted = deployment.spec?.replicas ?? 1;
  const status = deployment.status ?? {};
  const observed = (status.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0);
  const available = status.availableReplicas ?? 0;
  const complete = observed && (status.updatedReplicas ?? 0) === wanted && available === wanted && (status.replicas ?? 0) === wanted;
  const progressing = status.conditions?.find((c) => c.type === 'Progressing');
  return { complete, summary: `${available} of ${wanted} replicas available`, stalled: progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded' };
}

/** Why a Pod will not become Ready on its own (`ImagePullBackOff` and the Pod, container and message), or undefined. */
export function podFailure(pods: readonly Pod[]): { reason: string; message: string } | undefined {
  for (const pod of pods) {
    for (const container of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
      const waiting = container.state?.waiting;
      if (waiting?.reason !== undefined && failingReasons.has(waiting.reason)) {
        return { reason: waiting.reason, message: `pod ${pod.metadata.name}, container ${container.name}: ${waiting.message ?? waiting.reason}` };
      }
    }
  }
  return undefined;
}
