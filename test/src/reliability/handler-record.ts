/**
 * What one handler under test has seen: its view of the objects (what it would act on), and the
 * violations of the delivery contract noticed while it ran: two calls at once for one object,
 * events of one object out of order, a user delete run twice.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { ObjectKind } from './program.js';

/** A handler's belief about one object. */
export interface ViewEntry {
  uid: string;
  resourceVersion: string;
  /** The spec (gadget) or data (ConfigMap), as JSON. */
  content: string;
}

/**
 * What a handler's view must converge to: `version` = every object on the server at its latest
 * resourceVersion (mirrors and level-based reconcilers); `content` = every object not being deleted,
 * with its latest spec or data (finalizer-based handlers, which see a deletion as the end).
 */
export type ViewContract = 'version' | 'content';

/** Violations kept per handler (the first ones say it all). */
const MAX_VIOLATIONS = 20;

/** The spec of a gadget or the data of a ConfigMap, as JSON. */
export function contentOf(object: KubeObject): string {
  const o = object as KubeObject & { data?: unknown };
  return JSON.stringify(o.spec ?? o.data ?? null);
}

/** `kind/namespace/name`: the key of views and checks. */
export function viewKey(kind: ObjectKind, object: Pick<KubeObject, 'metadata'>): string {
  return `${kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

/** The record of one handler. */
export class HandlerRecord {
  readonly view = new Map<string, ViewEntry>();
  readonly violations: string[] = [];
  /** Calls of the handler. */
  calls = 0;
  /** uid -> times the user's delete ran for it. */
  readonly deletes = new Map<string, number>();
  /** uid -> key of every object that entered the view (its delete is owed once it goes). */
  readonly seen = new Map<string, string>();
  private readonly inFlight = new Set<string>();
  private readonly lastVersion = new Map<string, number>();

  constructor(
    readonly name: string,
    readonly contract: ViewContract,
  ) {}

  /** Marks a call of the handler for `key` as started and checks that it is the only one. Returns its end. */
  begin(key: string): () => void {
    this.calls++;
    if (this.inFlight.has(key)) this.violate(`two calls at once for ${key}`);
    this.inFlight.add(key);
    return () => this.inFlight.delete(key);
  }

  /**
   * The user's code is shown `object`: checks it is not older than what it was shown before. (Checked
   * where user code runs: a finalizer wrapper may retry a write with the event's object, which is
   * fine as long as it does not show that old object to the user again.)
   */
  shown(key: string, object: KubeObject): void {
    const rv = Number(object.metadata.resourceVersion);
    const last = this.lastVersion.get(key);
    if (last !== undefined && rv < last) this.violate(`out of order for ${key}: resourceVersion ${rv} shown after ${last}`);
    else this.lastVersion.set(key, rv);
  }

  /** The handler now believes `object` is the state of `key`. */
  set(key: string, object: KubeObject): void {
    this.shown(key, object);
    const uid = object.metadata.uid ?? '';
    this.view.set(key, { uid, resourceVersion: object.metadata.resourceVersion ?? '', content: contentOf(object) });
    this.seen.set(uid, key);
  }

  /** The handler was shown `object` (or nothing, level-based) and now believes `key` is gone. */
  remove(key: string, object: KubeObject | undefined): void {
    if (object !== undefined) this.shown(key, object);
    this.view.delete(key);
  }

  /** The user's delete ran for `object`. */
  deleted(key: string, object: KubeObject): void {
    this.shown(key, object);
    const uid = object.metadata.uid ?? '';
    const times = (this.deletes.get(uid) ?? 0) + 1;
    this.deletes.set(uid, times);
    if (times > 1) this.violate(`the user's delete ran ${times} times for ${key} (uid ${uid})`);
    this.view.delete(key);
  }

  violate(message: string): void {
    if (this.violations.length < MAX_VIOLATIONS) this.violations.push(`${this.name}: ${message}`);
  }
}
