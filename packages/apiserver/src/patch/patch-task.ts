/**
 * The pure parts of a large write, computed off the event loop: a patch (the patched object, and for
 * an apply its managedFields) and an Update's managedFields, as plain data in and out, so that the
 * server's worker thread can run them and the request's own turns only read the answers. Both sides
 * run {@link computePatch} and {@link computeUpdateFields}: the worker, and the server itself when it
 * has no worker.
 */
import type { JsonObject } from '../json-value.js';
import { ApplyConflictError, managedFieldsAfterUpdate } from './managed-fields.js';
import type { ApplyConflict, ManagedFieldsEntry } from './managed-fields.js';
import { applyJsonPatch } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import { PatchError, isPatchError } from './patch-error.js';
import type { PatchErrorReason, PatchErrorStatus } from './patch-error.js';
import { applyServerSideApply } from './server-side-apply.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { strategyFor } from './patch-strategies.js';
import { cutJson, joinJsonPieces } from '../worker/json-pieces.js';
import type { JsonPiece } from '../worker/json-pieces.js';

/** One patch to compute. Objects travel as JSON text: parsing it is much faster than a structured clone of many small members. */
export interface PatchTask {
  readonly format: 'apply' | 'strategic' | 'merge' | 'json';
  /** The stored object, JSON (as the store keeps it); undefined for an apply that creates. */
  readonly existingJson: string | undefined;
  /** The request's apiVersion, which the stored object is patched at. */
  readonly apiVersion: string;
  /** The patch, parsed (JSON). */
  readonly patchJson: string;
  /** An apply's options. */
  readonly fieldManager: string;
  readonly force: boolean;
  readonly subresource: string | undefined;
  /** The managedFields time, ISO 8601. */
  readonly now: string;
}

/** The outcome: the patched object in pieces (see `json-pieces.ts`), or the engine's typed error as data. */
export type PatchTaskReply =
  | { readonly ok: true; readonly pieces: readonly JsonPiece[] }
  | { readonly ok: false; readonly error: { readonly kind: 'patch'; readonly status: PatchErrorStatus; readonly reason: PatchErrorReason; readonly message: string } }
  | { readonly ok: false; readonly error: { readonly kind: 'conflict'; readonly conflicts: readonly ApplyConflict[] } };

/** Runs the patch engine of `task.format`. Throws only for what is not a patch error (a bug). */
export function computePatch(task: PatchTask): PatchTaskReply {
  const existing = task.existingJson === undefined ? undefined : { ...(JSON.parse(task.existingJson) as JsonObject), apiVersion: task.apiVersion };
  const patch = JSON.parse(task.patchJson) as unknown;
  try {
    let patched: JsonObject;
    if (task.format === 'apply') {
      const options = { force: task.force, subresource: task.subresource, now: new Date(task.now) };
      patched = applyServerSideApply(existing, patch as JsonObject, task.fieldManager, options);
    } else {
      const current = existing ?? {};
      if (task.format === 'json') patched = applyJsonPatch(current, patch);
      else patched = task.format === 'strategic' ? applyStrategicMergePatch(current, patch) : applyMergePatch(current, patch);
    }
    return { ok: true, pieces: cutJson(patched) };
  } catch (err) {
    if (err instanceof ApplyConflictError) return { ok: false, error: { kind: 'conflict', conflicts: err.conflicts } };
    if (isPatchError(err)) return { ok: false, error: { kind: 'patch', status: err.status, reason: err.reason, message: err.message } };
    throw err;
  }
}

/** The patched object of a reply (parsed a few pieces per turn), or its error thrown again as the engine threw it. */
export async function patchTaskResult(reply: PatchTaskReply): Promise<JsonObject> {
  if (reply.ok) return (await joinJsonPieces(reply.pieces)) as JsonObject;
  const { error } = reply;
  if (error.kind === 'conflict') throw new ApplyConflictError(error.conflicts);
  throw new PatchError(error.status, error.reason, error.message);
}

/** An Update's managedFields (see `managedFieldsAfterUpdate`), from the objects before and after it. */
export interface UpdateFieldsTask {
  /** Undefined for a create. */
  readonly oldJson: string | undefined;
  readonly nextJson: string;
  readonly manager: string;
  /** The apiVersion the entry records. */
  readonly apiVersion: string;
  readonly subresource: string | undefined;
  /** The entry's time, ISO 8601. */
  readonly now: string;
}

/** The entries after the update (undefined: none left). */
export function computeUpdateFields(task: UpdateFieldsTask): ManagedFieldsEntry[] | undefined {
  const old = task.oldJson === undefined ? undefined : (JSON.parse(task.oldJson) as JsonObject);
  const next = JSON.parse(task.nextJson) as JsonObject;
  return managedFieldsAfterUpdate(old, next, {
    manager: task.manager,
    apiVersion: task.apiVersion,
    subresource: task.subresource,
    now: new Date(task.now),
    strategy: strategyFor(next['apiVersion'], next['kind']),
  });
}
