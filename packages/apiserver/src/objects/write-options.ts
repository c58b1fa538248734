/** What a write is told (its request's options) and what it answers. */
import type { KubeObject } from '@kubeloop/resource';
import type { StoredObject } from '../storage/change-event.js';
import type { FieldValidation } from '../types/resource-type.js';

/** Options of every write. */
export interface WriteOptions {
  /** `dryRun=All`: validate and answer, store nothing. */
  readonly dryRun: boolean;
  /** How unknown and duplicate fields are handled. Default on the wire: `Warn`. */
  readonly fieldValidation: FieldValidation;
  /** Field paths the request body repeated (JSON bodies; patches are scanned here). */
  readonly duplicateFields?: readonly string[];
  /** The `fieldManager` parameter. Default: none (an update's manager then comes from {@link userAgent}). */
  readonly fieldManager?: string | undefined;
  /** The request's User-Agent, whose program name manages an update without `fieldManager`. Default: none (no managedFields entry). */
  readonly userAgent?: string | undefined;
  /**
   * A large request ({@link largeBodyChars} and up): its steps (decode, checks, store write), each tens of
   * milliseconds at that size, run in turns of their own, so that other clients are answered between
   * them. The store stays locked throughout: no other write slips in. Default: false.
   */
  readonly stepwise?: boolean | undefined;
}

/**
 * Request bodies (and stored objects) this long (characters) and longer are written stepwise, and
 * their patches computed in the server's worker thread. Measured on the 2-core machine: a
 * server-side apply of a 69 KB Deployment (2,000 containers) takes about 25 ms in the apply engine
 * alone (warm, machine loaded); 20,000 containers (0.67 MB) held the loop 300 ms, and stepwise,
 * with the body parsed and merged in the worker and its answer parsed back in pieces, at most
 * about 20 ms at a time.
 */
export const largeBodyChars = 64 * 1024;

/** What a create or an update is told besides the request's options. */
export type InternalWrite = WriteOptions & {
  /** What an update writes. Default: the main resource. */
  readonly subresource?: WriteSubresource;
  /** The write is a server-side apply: its managedFields are already set. Default: false. */
  readonly applied?: boolean;
  /** A PUT: the object must carry a resourceVersion unless its type allows unconditional updates. Default: false (patches, scale). */
  readonly requireResourceVersion?: boolean;
};

/**
 * What an update writes: the main resource, `/status`, a namespace's `/finalize` (only
 * `spec.finalizers`), or a Pod's binding to a node (only the simulated scheduler: `bind-pod.ts`).
 */
export type WriteSubresource = 'status' | 'finalize' | 'binding' | undefined;

/** The outcome of a create, update or patch. */
export interface WriteResult {
  /** The object as stored (or as it would be, for a dry run). */
  readonly stored: StoredObject;
  /** 201 rather than 200. */
  readonly created: boolean;
  /** `Warning` headers to send (unknown fields under `fieldValidation=Warn`). */
  readonly warnings: readonly string[];
}

/** What a dry run answers: the object as it would be stored. */
export function dryRunStored(obj: KubeObject, key: string): StoredObject {
  const rv = Number(obj.metadata.resourceVersion ?? '0');
  // A dry-run create has no resourceVersion yet (the placeholder is not a real one).
  if (obj.metadata.resourceVersion === '0') delete obj.metadata.resourceVersion;
  return { object: obj, json: JSON.stringify(obj), rv, key };
}
