/**
 * `createOrUpdate` and `createOrPatch`: controller-runtime's `controllerutil.CreateOrUpdate` /
 * `CreateOrPatch`, the way an operator writes the objects it owns: read the object, let a function
 * set the desired state on it (or on a fresh object when it does not exist), and write only when
 * that changed something.
 */
import { KubeloopError, identifierOf, isNotFound } from '@kubeloop/resource';
import type { Identifier, KubeObject, MergePatchRequest, WriteOptions } from '@kubeloop/resource';

/** What a create-or-update did (controllerutil's `OperationResult`, same strings). */
export type OperationResult = 'unchanged' | 'created' | 'updated' | 'updatedStatus' | 'updatedStatusOnly';

/** Sets the desired state on `object` (the current one, or the template when creating). Must not change its name or namespace. */
export type MutateFn<T extends KubeObject> = (object: T) => void | Promise<void>;

/** What {@link createOrUpdate} needs of a client (`Client<T>` of @kubeloop/resource is one). */
export interface CreateOrUpdateClient<T extends KubeObject> {
  get(id: Identifier, options?: WriteOptions): Promise<T>;
  create(object: T, options?: WriteOptions): Promise<T>;
  update(object: T, options?: WriteOptions): Promise<T>;
}

/** What {@link createOrPatch} needs of a client (`Client<T>` of @kubeloop/resource is one). */
export interface CreateOrPatchClient<T extends KubeObject> {
  get(id: Identifier, options?: WriteOptions): Promise<T>;
  create(object: T, options?: WriteOptions): Promise<T>;
  patch(id: Identifier, patch: MergePatchRequest<T>, options?: WriteOptions): Promise<T>;
}

/** Options of the writes (`signal`, `fieldManager`, `fieldValidation`, `dryRun`...). Default: none. */
export type CreateOrUpdateOptions = Omit<WriteOptions, 'subresource'>;

/** The outcome: what was done, and the object as the server returned it (as read when `unchanged`). */
export interface CreateOrUpdateResult<T extends KubeObject> {
  operation: OperationResult;
  object: T;
}

/**
 * Reads the object named by `object`; when it does not exist, calls `mutate` on a copy of `object`
 * and creates it (`created`); otherwise calls `mutate` on a copy of the current object and replaces
 * it with an update when anything changed (`updated`, else `unchanged`). The update carries the
 * resourceVersion read, so a concurrent change fails with 409 (retry the whole call).
 * @throws KubeloopError code `InvalidMutation` when `mutate` changed the name or namespace; the API
 *   errors of the writes.
 */
export async function createOrUpdate<T extends KubeObject>(
  client: CreateOrUpdateClient<T>,
  object: T,
  mutate: MutateFn<T>,
  options: CreateOrUpdateOptions = {},
): Promise<CreateOrUpdateResult<T>> {
  const step = await createOrMutate(client, object, mutate, options);
  if ('created' in step) return { operation: 'created', object: step.created };
  const { current, desired } = step;
  if (jsonEqual(current, desired)) return { operation: 'unchanged', object: current };
  return { operation: 'updated', object: await client.update(desired, options) };
}

/**
 * As {@link createOrUpdate}, but writes with merge patches of the difference (no resourceVersion: no
 * conflict with concurrent changes of other fields): one for everything but `status` (`updated`), then
 * one on the `status` subresource when `mutate` changed the status (`updatedStatus`, or
 * `updatedStatusOnly` when nothing else changed). Arrays are patched whole, as merge patches do.
 * @throws KubeloopError code `InvalidMutation` when `mutate` changed the name or namespace; the API
 *   errors of the writes.
 */
export async function createOrPatch<T extends KubeObject>(
  client: CreateOrPatchClient<T>,
  object: T,
  mutate: MutateFn<T>,
  options: CreateOrUpdateOptions = {},
): Promise<CreateOrUpdateResult<T>> {
  const step = await createOrMutate(client, object, mutate, options);
  if ('created' in step) return { operation: 'created', object: step.created };
  const { id, current, desired } = step;
  const { status: beforeStatus, ...before } = current;
  const { status: afterStatus, ...after } = desired;
  let operation: OperationResult = 'unchanged';
  let result = current;
  const patch = mergePatchBetween(before, after);
  if (patch !== undefined) {
    result = await client.patch(id, { merge: patch } as MergePatchRequest<T>, options);
    operation = 'updated';
  }
  const statusPatch = mergePatchBetween(beforeStatus ?? null, afterStatus ?? null);
  if (statusPatch !== undefined) {
    result = await client.patch(id, { merge: { status: statusPatch } } as MergePatchRequest<T>, { ...options, subresource: 'status' });
    operation = operation === 'updated' ? 'updatedStatus' : 'updatedStatusOnly';
  }
  return { operation, object: result };
}

/** The first half of both: create the missing object from the template, or mutate a copy of the current one. */
async function createOrMutate<T extends KubeObject>(
  client: Pick<CreateOrUpdateClient<T>, 'get' | 'create'>,
  object: T,
  mutate: MutateFn<T>,
  options: CreateOrUpdateOptions,
): Promise<{ created: T } | { id: Identifier; current: T; desired: T }> {
  const id = identifierOf(object);
  let current: T;
  try {
    current = await client.get(id, { signal: options.signal, timeoutMs: options.timeoutMs });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    return { created: await client.create(await mutated(object, id, mutate), options) };
  }
  return { id, current, desired: await mutated(current, id, mutate) };
}

/** `mutate` applied to a deep copy of `object`, checked to still name the same object. */
async function mutated<T extends KubeObject>(object: T, id: Identifier, mutate: MutateFn<T>): Promise<T> {
  const copy = structuredClone(object);
  await mutate(copy);
  const after = identifierOf(copy);
  if (after.name !== id.name || after.namespace !== id.namespace) {
    throw new KubeloopError('InvalidMutation', `the mutate function must not change the name or namespace of ${object.kind} ${id.namespace ? `${id.namespace}/` : ''}${id.name}`);
  }
  return copy;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values; key order does not matter, an undefined field equals a missing one. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if (!jsonEqual(a[key], b[key])) return false;
  return true;
}

/**
 * The RFC 7386 merge patch that turns `before` into `after`, or undefined when they are equal: changed
 * and new fields, `null` for removed ones, arrays and scalars replaced whole.
 */
export function mergePatchBetween(before: unknown, after: unknown): unknown {
  if (jsonEqual(before, after)) return undefined;
  if (!isPlainObject(before) || !isPlainObject(after)) return after === undefined ? null : after;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) if (before[key] !== undefined && after[key] === undefined) patch[key] = null;
  for (const key of Object.keys(after)) {
    if (after[key] === undefined) continue;
    const change = mergePatchBetween(before[key], after[key]);
    if (change !== undefined) patch[key] = change;
  }
  return patch;
}
