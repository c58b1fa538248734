/**
 * A watcher that uses a finalizer so that no delete is missed, even across restarts
 * (grafana-app-sdk `OpinionatedWatcher`).
 *
 * Flow: a new object gets `addFunc`, then our finalizer; on start-up, an object that already has
 * our finalizer gets `syncFunc` instead (it was handled by an earlier run); a deletion (the API sets
 * `deletionTimestamp` and waits for finalizers) gets `deleteFunc`, then our finalizer is removed,
 * which lets the API delete the object.
 *
 * The rules, in the order the code applies them:
 * - add(O): 1. O missing -> ErrNilObject. 2. O deleting: our finalizer absent -> ignore; present ->
 *   deleteFunc, then remove our finalizer (deleteFunc's error is returned and nothing is patched).
 *   3. our finalizer present -> syncFunc. 4. else addFunc, then add our finalizer (a patch error is
 *   returned as "error adding finalizer: ..."; a removal error is the patch error itself, as upstream).
 * - update(old, new): 1. either missing -> "old cannot be nil" / "new cannot be nil"
 *   (`isNilObjectError`). 2. `new.generation > 0` and unchanged -> ignore. 3. our finalizer absent
 *   and not deleting -> addFunc, then add our finalizer, then go on (upstream's retry of a failed
 *   add; as upstream, updateFunc follows). 4. deleting: finalizer absent -> ignore (see delete);
 *   present -> deleteFunc, then remove our finalizer. 5. the update is only the echo of our
 *   finalizer add -> ignore. 6. else updateFunc.
 *   Rule 5 is safe under coalescing (old -> new may span several writes, see InformerController):
 *   it holds only when our finalizer is new in `new` and nothing else changed: the generation for
 *   objects that have one (a finalizer add never bumps it; rule 2 already ignored an unchanged one),
 *   the whole object but `metadata.finalizers`, `resourceVersion` and `managedFields` for the others.
 * - delete(O): upstream ignores deletes. We: if our deleteFunc already ran for this object, ignore;
 *   otherwise call deleteFunc, because the object went away without our finalizer, e.g. when addFunc
 *   failed or was still being retried (grafana-app-sdk #46, #630), so the delete is not lost.
 *
 * Guarantees: at-least-once `deleteFunc` per deleted object that was seen; the finalizer is removed
 * only after `deleteFunc` succeeded; other finalizers are never touched (add appends with a
 * precondition, removal is by value). Caveats: `deleteFunc` may run twice for one object if the
 * process restarts between removing the finalizer and seeing the object go; a retry after a failed
 * finalizer removal does not call `deleteFunc` again within one process.
 */
import { isDeepStrictEqual } from 'node:util';
import { KubeloopError } from '@kubeloop/resource';
import type { KubeObject, Schema } from '@kubeloop/resource';
import { ErrNilObject, InvalidArgumentError, isFinalizerOperationError } from '../errors.js';
import { DefaultFinalizerSupplier, addFinalizer, hasFinalizer, removeFinalizer, validateFinalizerName } from './finalizer.js';
import type { FinalizerSupplier } from './finalizer.js';
import type { PatchClient } from '../informer/list-watch-client.js';
import type { HandlerContext, ResourceWatcher } from './resource-watcher.js';
import { SpanNames, endSpan, runInSpan, startObjectSpan } from '../observability/tracing.js';

/** Options of {@link newOpinionatedWatcher}. */
export interface OpinionatedWatcherOptions {
  /** Names the finalizer from the schema. Default: {@link DefaultFinalizerSupplier} (`operator.{version}.{kind}.{group}`). */
  finalizerSupplier?: FinalizerSupplier | undefined;
}

/** A handler of one object. */
export type ObjectFunc<T extends KubeObject> = (ctx: HandlerContext, object: T) => Promise<void>;
/** A handler of an update. */
export type UpdateFunc<T extends KubeObject> = (ctx: HandlerContext, oldObject: T, newObject: T) => Promise<void>;

/** See the module documentation for the rules. Create with {@link newOpinionatedWatcher}. */
export class OpinionatedWatcher<T extends KubeObject = KubeObject> implements ResourceWatcher<T> {
  /** Called for an object seen for the first time (no finalizer of ours yet). Default: none. */
  addFunc: ObjectFunc<T> | undefined;
  /** Called for a change of the object's generation. Default: none. */
  updateFunc: UpdateFunc<T> | undefined;
  /** Called once the object is being deleted (or went away without our finalizer). Default: none. */
  deleteFunc: ObjectFunc<T> | undefined;
  /** Called on start-up (and resync) for an object an earlier run already handled. Default: none. */
  syncFunc: ObjectFunc<T> | undefined;
  /**
   * Called when the object left this replica's shard (sharding): another replica owns it now.
   * Never `deleteFunc`, and our finalizer stays (the new owner runs the delete path). Default: none.
   */
  releaseFunc: ObjectFunc<T> | undefined;
  /** The finalizer this watcher adds and removes. */
  readonly finalizer: string;

  private readonly schema: Schema;
  private readonly client: PatchClient<T>;
  /** Objects (by uid) whose deleteFunc succeeded: a retry of the finalizer removal, and the final delete event, skip it. */
  private readonly deleted = new Set<string>();

  constructor(schema: Schema, client: PatchClient<T>, options: OpinionatedWatcherOptions = {}) {
    if (!schema) throw new InvalidArgumentError('schema cannot be nil');
    if (!client) throw new InvalidArgumentError('client cannot be nil');
    const finalizer = (options.finalizerSupplier ?? DefaultFinalizerSupplier)(schema);
    validateFinalizerName(finalizer);
    this.schema = schema;
    this.client = client;
    this.finalizer = finalizer;
  }

  /** The schema this watcher was made for. */
  getSchema(): Schema {
    return this.schema;
  }

  /**
   * Calls `watcher` for adds, updates and deletes; also for syncs when `syncToAdd` (otherwise
   * `syncFunc` is left as it is). A missing watcher is ignored.
   */
  wrap(watcher: ResourceWatcher<T> | undefined, syncToAdd: boolean): void {
    if (!watcher) return;
    this.addFunc = (ctx, object) => watcher.add(ctx, object);
    this.updateFunc = (ctx, oldObject, newObject) => watcher.update(ctx, oldObject, newObject);
    this.deleteFunc = (ctx, object) => watcher.delete(ctx, object);
    this.releaseFunc = watcher.release === undefined ? undefined : (ctx, object) => watcher.release!(ctx, object);
    if (syncToAdd) this.syncFunc = (ctx, object) => watcher.add(ctx, object);
  }

  async add(ctx: HandlerContext, object: T): Promise<void> {
    if (!object) throw ErrNilObject;
    await inObjectSpan(SpanNames.opinionatedWatcherAdd, object, async () => {
      if (object.metadata.deletionTimestamp) {
        if (hasFinalizer(object, this.finalizer)) await this.finalize(ctx, object);
        return;
      }
      if (hasFinalizer(object, this.finalizer)) {
        if (this.syncFunc) await this.syncFunc(ctx, object);
        return;
      }
      await this.addAndProtect(ctx, object);
    });
  }

  async update(ctx: HandlerContext, oldObject: T, newObject: T): Promise<void> {
    if (!oldObject) throw nilObjectError('old');
    if (!newObject) throw nilObjectError('new');
    await inObjectSpan(SpanNames.opinionatedWatcherUpdate, newObject, async () => {
      const generation = newObject.metadata.generation ?? 0;
      if (generation > 0 && oldObject.metadata.generation === generation) return;
      const deleting = Boolean(newObject.metadata.deletionTimestamp);
      const ours = hasFinalizer(newObject, this.finalizer);
      if (!ours && !deleting) {
        // The add failed earlier (or slipped past us): do it now, then handle the update as upstream does.
        await this.addAndProtect(ctx, newObject);
      }
      if (deleting) {
        if (ours) await this.finalize(ctx, newObject);
        return;
      }
      if (ours && isFinalizerAddEcho(oldObject, newObject, this.finalizer)) return;
      if (this.updateFunc) await this.updateFunc(ctx, oldObject, newObject);
    });
  }

  /** Upstream ignores deletes, so no span of its own: deleteFunc runs in the caller's context. */
  async delete(ctx: HandlerContext, object: T): Promise<void> {
    if (!object) throw ErrNilObject;
    const id = identity(object);
    if (this.deleted.delete(id)) return;
    if (this.deleteFunc) await this.deleteFunc(ctx, object);
  }

  /** The object left this replica's shard: `releaseFunc` only (no delete path, no finalizer change). */
  async release(ctx: HandlerContext, object: T): Promise<void> {
    if (!object) throw ErrNilObject;
    // Another replica deletes it now; the marker of a delete handled here is of no use any more.
    this.deleted.delete(identity(object));
    if (this.releaseFunc) await this.releaseFunc(ctx, object);
  }

  /** addFunc, then our finalizer. */
  private async addAndProtect(ctx: HandlerContext, object: T): Promise<void> {
    if (this.addFunc) await this.addFunc(ctx, object);
    await addFinalizer(this.client, object, this.finalizer, { signal: ctx.signal });
  }

  /** deleteFunc (once per object in this process), then remove our finalizer. */
  private async finalize(ctx: HandlerContext, object: T): Promise<void> {
    const id = identity(object);
    if (!this.deleted.has(id)) {
      if (this.deleteFunc) await this.deleteFunc(ctx, object);
      this.deleted.add(id);
    }
    try {
      await removeFinalizer(this.client, object, this.finalizer, { signal: ctx.signal });
    } catch (error) {
      // As upstream, the patch error itself (an add error is wrapped as "error adding finalizer: ...").
      throw isFinalizerOperationError(error) ? error.cause : error;
    }
  }
}

/** Upstream's "old cannot be nil" / "new cannot be nil", recognised by `isNilObjectError`. */
function nilObjectError(which: 'old' | 'new'): KubeloopError {
  return new KubeloopError(ErrNilObject.code, `${which} cannot be nil`);
}

/**
 * A new {@link OpinionatedWatcher} for `schema`, writing finalizers through `client` (grafana-app-sdk
 * `NewOpinionatedWatcher` / `NewOpinionatedWatcherWithFinalizer`).
 * @throws InvalidArgumentError "schema cannot be nil", "client cannot be nil", or an invalid finalizer name.
 */
export function newOpinionatedWatcher<T extends KubeObject = KubeObject>(
  schema: Schema,
  client: PatchClient<T>,
  options: OpinionatedWatcherOptions = {},
): OpinionatedWatcher<T> {
  return new OpinionatedWatcher<T>(schema, client, options);
}

/**
 * True when `newObject` is `oldObject` plus our finalizer and nothing else that matters: the update
 * our own finalizer patch caused, even if several writes were merged into it.
 */
function isFinalizerAddEcho(oldObject: KubeObject, newObject: KubeObject, finalizer: string): boolean {
  if (hasFinalizer(oldObject, finalizer) || !hasFinalizer(newObject, finalizer)) return false;
  const generation = newObject.metadata.generation ?? 0;
  if (generation > 0 || (oldObject.metadata.generation ?? 0) > 0) return oldObject.metadata.generation === generation;
  return isDeepStrictEqual(withoutWriteMetadata(oldObject), withoutWriteMetadata(newObject));
}

/** The object without what any write changes (resourceVersion, managedFields) and without finalizers. */
function withoutWriteMetadata(object: KubeObject): KubeObject {
  const { finalizers: _finalizers, resourceVersion: _resourceVersion, managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/**
 * Runs `body` in a new span about `object`, the active context while it runs (as upstream passes the
 * span's ctx to the user functions), so spans the user functions start are its children.
 */
async function inObjectSpan(name: string, object: KubeObject, body: () => Promise<void>): Promise<void> {
  const span = startObjectSpan(name, object);
  try {
    await runInSpan(span, body);
  } catch (error) {
    endSpan(span, error);
    throw error;
  }
  endSpan(span);
}

function identity(object: KubeObject): string {
  return object.metadata.uid ?? `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}
