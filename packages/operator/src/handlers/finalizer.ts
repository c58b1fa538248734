/**
 * Finalizers: naming, validation, and the two writes, made safe against concurrent writers.
 *
 * Flow: `addFinalizer` appends with a JSON patch guarded by a `test` of the object's
 * resourceVersion; `removeFinalizer` finds the name in the latest object and removes it by index,
 * guarded by a `test` that the index still holds that name. A failed guard (409/422) refetches the
 * object and tries again, a bounded number of times.
 *
 * Guarantees: other controllers' finalizers are never replaced, reordered or removed (grafana-app-sdk
 * #910, #973); a name already present is not added twice; removing an absent name, or from an
 * object that is gone (404), succeeds without writing.
 * Caveats: an object being deleted gets no new finalizer (the API refuses it): `addFinalizer` returns
 * the object unchanged; after `maxAttempts` conflicts the last error is thrown.
 */
import { isConflict, isInvalid, isNotFound, qualifiedNameProblem } from '@kubeloop/resource';
import type { Identifier, KubeObject, PatchOperation, Schema } from '@kubeloop/resource';
import { FinalizerOperationError, InvalidArgumentError } from '../errors.js';
import type { PatchClient } from '../informer/list-watch-client.js';

/** Makes the finalizer name of a kind (grafana-app-sdk `FinalizerSupplier`). */
export type FinalizerSupplier = (schema: Schema) => string;

/**
 * `operator.{version}.{kind}.{group}`, the kind as written (upstream's pattern, so that a Go and a
 * TypeScript operator of one kind agree), e.g. `operator.v1.Playlist.playlist.grafana.app`. For the
 * core group (''), the trailing dot is left out: `operator.v1.ConfigMap`.
 */
export const DefaultFinalizerSupplier: FinalizerSupplier = (schema) =>
  schema.group ? `operator.${schema.version}.${schema.kind}.${schema.group}` : `operator.${schema.version}.${schema.kind}`;

/**
 * Throws an {@link InvalidArgumentError} unless `name` is a valid finalizer: a qualified name, i.e. an
 * optional lower-case DNS subdomain prefix and `/`, then a name part of at most 63 characters
 * (alphanumeric at both ends; `-`, `_`, `.` inside). Upstream never checked (grafana-app-sdk #321).
 */
export function validateFinalizerName(name: string): void {
  if (typeof name !== 'string' || name === '') throw new InvalidArgumentError('finalizer cannot be empty');
  const problem = qualifiedNameProblem(name);
  if (problem !== undefined) throw new InvalidArgumentError(`invalid finalizer name ${JSON.stringify(name)}: ${problem}`);
}

/** Options of {@link addFinalizer} and {@link removeFinalizer}. */
export interface FinalizerWriteOptions {
  /** Patch attempts before giving up on conflicts. Default: 5. */
  maxAttempts?: number;
  /** Aborts the requests. Default: none. */
  signal?: AbortSignal;
}

/** True when the object's finalizers contain `name`. */
export function hasFinalizer(object: KubeObject, name: string): boolean {
  const finalizers = object.metadata.finalizers;
  return finalizers !== undefined && finalizers.includes(name);
}

/**
 * Adds `name` to the object's finalizers, keeping every other finalizer. Resolves with the object as
 * written (or as found, when nothing had to change), or `undefined` when the object no longer exists.
 * @throws {@link FinalizerOperationError} when the API refuses, or conflicts outlast `maxAttempts`.
 */
export async function addFinalizer<T extends KubeObject>(
  client: PatchClient<T>,
  object: T,
  name: string,
  options: FinalizerWriteOptions = {},
): Promise<T | undefined> {
  return writeFinalizer(client, object, name, 'add', options);
}

/**
 * Removes `name` from the object's finalizers by value, keeping every other finalizer. Resolves with the
 * object as written (or as found, when the name was absent), or `undefined` when the object is gone
 * (removing the last finalizer of an object being deleted deletes it; a 404 counts as success).
 * @throws {@link FinalizerOperationError} when the API refuses, or conflicts outlast `maxAttempts`.
 */
export async function removeFinalizer<T extends KubeObject>(
  client: PatchClient<T>,
  object: T,
  name: string,
  options: FinalizerWriteOptions = {},
): Promise<T | undefined> {
  return writeFinalizer(client, object, name, 'remove', options);
}

async function writeFinalizer<T extends KubeObject>(
  client: PatchClient<T>,
  object: T,
  name: string,
  operation: 'add' | 'remove',
  options: FinalizerWriteOptions,
): Promise<T | undefined> {
  const maxAttempts = options.maxAttempts ?? 5;
  const id: Identifier = { namespace: object.metadata.namespace ?? '', name: object.metadata.name };
  const requestOptions = options.signal ? { signal: options.signal } : {};
  let current = object;
  for (let attempt = 1; ; attempt++) {
    const operations = operation === 'add' ? addOperations(current, name) : removeOperations(current, name);
    if (operations === undefined) return current;
    try {
      return await client.patch(id, { operations }, requestOptions);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      if (!(isConflict(error) || isInvalid(error)) || attempt >= maxAttempts) {
        throw finalizerError(operation, name, error);
      }
    }
    // The guard failed: someone else wrote in between. Read the latest object and decide again.
    try {
      current = await client.get(id, requestOptions);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw finalizerError(operation, name, error);
    }
  }
}

/** The patch that appends `name`, or undefined when there is nothing to do. */
function addOperations(object: KubeObject, name: string): PatchOperation[] | undefined {
  const finalizers = object.metadata.finalizers;
  if (finalizers !== undefined && finalizers.includes(name)) return undefined;
  // The API refuses new finalizers on an object being deleted (422): never try.
  if (object.metadata.deletionTimestamp) return undefined;
  const operations: PatchOperation[] = [];
  const rv = object.metadata.resourceVersion;
  // The precondition matters most when the array is missing: `add /metadata/finalizers` would
  // otherwise replace an array another writer created in the meantime.
  if (rv) operations.push({ op: 'test', path: '/metadata/resourceVersion', value: rv });
  if (finalizers === undefined || finalizers.length === 0) operations.push({ op: 'add', path: '/metadata/finalizers', value: [name] });
  else operations.push({ op: 'add', path: '/metadata/finalizers/-', value: name });
  return operations;
}

/** The patch that removes `name` by value, or undefined when it is absent. */
function removeOperations(object: KubeObject, name: string): PatchOperation[] | undefined {
  const index = object.metadata.finalizers?.indexOf(name) ?? -1;
  if (index < 0) return undefined;
  // Guarded by value, not by resourceVersion: unrelated writes (status, labels) do not conflict,
  // and a concurrent change of the list fails the test instead of removing someone else's finalizer.
  const path = `/metadata/finalizers/${index}`;
  return [
    { op: 'test', path, value: name },
    { op: 'remove', path },
  ];
}

/** grafana-app-sdk's text: "error adding finalizer: <the API error>" (the name is in `finalizer`). */
function finalizerError(operation: 'add' | 'remove', name: string, cause: unknown): FinalizerOperationError {
  return new FinalizerOperationError(operation, name, `error ${operation === 'add' ? 'adding' : 'removing'} finalizer: ${errorMessage(cause)}`, { cause });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
