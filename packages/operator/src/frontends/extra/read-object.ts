/**
 * Steps 1 and 2 shared by {@link StdReconciler} and {@link StdK8sReconciler}: read the object, and
 * put the finalizer on it (through the core's finalizer helpers, which keep other finalizers).
 */
import { isNotFound } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import type { EventRecorder } from '../../handlers/event-recorder.js';
import { addFinalizer, hasFinalizer, removeFinalizer } from '../../handlers/finalizer.js';
import type { PatchClient } from '../../informer/list-watch-client.js';
import type { Logger } from '../../observability/logger.js';
import type { Request } from '../reconcile/request.js';
import type { HandlerContext } from '../../handlers/resource-watcher.js';

/** What the standard reconcilers share. */
export interface StdContext<T extends KubeObject> {
  client: PatchClient<T>;
  /** '' for none. */
  finalizer: string;
  logger: Logger;
  recorder: EventRecorder | undefined;
}

/**
 * 1. Reads the object of `request`. Resolves `undefined` when there is nothing to reconcile: the
 * object is gone, or it is being deleted without our finalizer (there is nothing of ours left to
 * clean up, or no finalizer guards the cleanup). Other read errors are thrown.
 */
export async function readObject<T extends KubeObject>(std: StdContext<T>, ctx: HandlerContext, request: Request): Promise<T | undefined> {
  let object: T;
  try {
    object = await std.client.get({ namespace: request.namespace, name: request.name }, { signal: ctx.signal });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  if (object.metadata.deletionTimestamp && !(std.finalizer && hasFinalizer(object, std.finalizer))) return undefined;
  return object;
}

/**
 * What step 2 did: `present` (nothing to do, or no finalizer configured), `added` (the reconcile
 * ends with `{ requeue: true }`, as upstream: the next pass starts from the written object) or
 * `gone` (deleted meanwhile: nothing to reconcile).
 */
export type FinalizerStep = 'present' | 'added' | 'gone';

/** 2. Adds our finalizer when it is missing (other finalizers are kept). A failed patch is thrown. */
export async function ensureFinalizer<T extends KubeObject>(std: StdContext<T>, ctx: HandlerContext, object: T): Promise<FinalizerStep> {
  const finalizer = std.finalizer;
  if (!finalizer || hasFinalizer(object, finalizer)) return 'present';
  const written = await addFinalizer(std.client, object, finalizer, { signal: ctx.signal });
  // Deleted in between: gone, or being deleted (the API refuses new finalizers, so there is none of ours).
  if (written === undefined || !hasFinalizer(written, finalizer)) return 'gone';
  const key = `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
  std.logger.info('added finalizer', { object: key, finalizer });
  std.recorder?.recordEvent(written, 'Normal', 'AddedFinalizer', `Added finalizer ${finalizer}`);
  return 'added';
}

/**
 * 5. Removes our finalizer once the cleanup succeeded. The object takes the written resourceVersion,
 * as upstream's in-place Update, so that the status write-back that follows is not refused as stale.
 */
export async function removeOurFinalizer<T extends KubeObject>(std: StdContext<T>, ctx: HandlerContext, object: T): Promise<void> {
  const written = await removeFinalizer(std.client, object, std.finalizer, { signal: ctx.signal });
  if (written?.metadata.resourceVersion !== undefined) object.metadata.resourceVersion = written.metadata.resourceVersion;
}

/** Records the Warning Event of a failed finalizer add (upstream: reason "Adding finalizer"). */
export function finalizerAddFailed<T extends KubeObject>(std: StdContext<T>, object: T, err: unknown): void {
  std.logger.error('error when adding finalizer', { object: `${object.metadata.namespace ?? ''}/${object.metadata.name}`, error: err });
  std.recorder?.recordEvent(object, 'Warning', 'AddingFinalizer', `Failed to add finalizer: ${errorMessage(err)}`);
}

/** A short message of an error, for Events. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
