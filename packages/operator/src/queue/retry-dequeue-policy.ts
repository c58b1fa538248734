import type { KubeObject } from '@kubeloop/resource';
import type { ResourceAction } from '../handlers/actions.js';

/**
 * Decides, when a new event of an object is processed, whether a pending retry of the same handler
 * for the same object is dropped (`true`) or kept (`false`) (grafana-app-sdk `RetryDequeuePolicy`).
 * It is called once per pending retry. `retryAction` is the informer action of the event that failed.
 */
export type RetryDequeuePolicy = (
  newAction: ResourceAction,
  newObject: KubeObject,
  retryAction: ResourceAction,
  retryObject: KubeObject,
  retryError: unknown,
) => boolean;

/**
 * The default dequeue policy (grafana-app-sdk `OpinionatedRetryDequeuePolicy`), in order:
 * 1. the new action is a DELETE: drop the retry (the object is gone);
 * 2. the actions differ (e.g. a pending CREATE retry and a new UPDATE): keep the retry;
 * 3. the generation is unchanged (a resync, or a status/metadata write such as our own): keep the retry;
 * 4. otherwise (the spec changed): drop the retry, the new event supersedes it.
 *
 * Upstream's default dropped every pending retry on any new event, so resyncs and the operator's
 * own status writes cancelled retries; this policy is our default instead.
 */
export const OpinionatedRetryDequeuePolicy: RetryDequeuePolicy = (newAction, newObject, retryAction, retryObject) => {
  // 1.
  if (newAction === 'DELETE') return true;
  // 2.
  if (newAction !== retryAction) return false;
  // 3.
  if ((newObject.metadata.generation ?? 0) === (retryObject.metadata.generation ?? 0)) return false;
  // 4.
  return true;
};
