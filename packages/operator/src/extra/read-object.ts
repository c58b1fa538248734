/**
 * Steps 1 and 2 shared by {@link StdReconciler} and {@link StdK8sReconciler}: read the object, and
 * put the finalizer on it (through the core's finalizer helpers, which keep other finalizers).
 */
import { isNotFound } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import type { EventRecorder } from '../event-recorder.js';
import { addFinalizer, hasFinalizer } from '../finalizer.js';
import type { PatchClient } from '../list-watch-client.js';
import type { Logger } from '../logger.js';
import type { Request } from '../reconcile/request.js';
import type { HandlerContext } from '../resource-watcher.js';

/** What the standard reconcilers share. */
export interface StdContext<T extends KubeObject> {
  client: PatchClient<T>;
  /** '' for none. */
  finalizer: string;
  logger: Logger;
  recorder: EventRecorder | undefined;
}

/**
 * Reads the object of `request` and makes sure it carries the finalizer. Resolves `undefined` when
 * there is nothing to reconcile: the object is gone, or it is being deleted without our finalizer
 * (there is nothing of ours left to clean up, or no finalizer guards the cleanup).
 */
export async function readObject<T extends KubeObject>(std: StdContext<T>, ctx: HandlerContext, request: Request): Promise<T | undefined> {
  // 1. Read the object.
  let object: T;
  try {
    object = await std.client.get({ namespace: request.namespace, name: request.name }, { signal: ctx.signal });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  // 2. Finalizer.
  const finalizer = std.finalizer;
  if (object.metadata.deletionTimestamp) return finalizer && hasFinalizer(object, finalizer) ? object : undefined;
  if (finalizer && !hasFinalizer(object, finalizer)) {
    const written = await addFinalizer(std.client, object, finalizer, { signal: ctx.signal });
    if (written === undefined) return undefined;
    // Deleted in between: the API refuses new finalizers, so there is none of ours.
    if (!hasFinalizer(written, finalizer)) return undefined;
    std.logger.info('added finalizer', { object: `${request.namespace}/${request.name}`, finalizer });
    std.recorder?.recordEvent(written, 'Normal', 'AddedFinalizer', `Added finalizer ${finalizer}`);
    object = written;
  }
  return object;
}

/** A short message of an error, for Events. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
