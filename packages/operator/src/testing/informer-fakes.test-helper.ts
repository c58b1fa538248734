/**
 * Test doubles for informer, watcher and finalizer tests: a scripted ListWatchClient, a watch
 * stream the test feeds, an in-memory PatchClient that applies JSON patches like the API server,
 * and small object builders.
 */
import { ApiError, objectKey } from '@kubeloop/resource';
import type {
  Identifier,
  KubeObject,
  ListObject,
  ListOptions,
  PatchOperation,
  PatchRequest,
  RequestOptions,
  Schema,
  WatchEvent,
  WatchOptions,
  WatchResponse,
  WriteOptions,
} from '@kubeloop/resource';
import type { ListWatchClient, PatchClient } from '../informer/list-watch-client.js';
import { noopLogger } from '../observability/logger.js';
import type { HandlerContext, ResourceWatcher } from '../handlers/resource-watcher.js';

/** A test kind. */
export const widgetKind: Schema = {
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  scope: 'Namespaced',
  apiVersion: 'example.com/v1',
};

/** Builds a Widget. */
export function widget(
  name: string,
  rv: string,
  extra: { uid?: string; generation?: number; finalizers?: string[]; deletionTimestamp?: string; namespace?: string; spec?: unknown } = {},
): KubeObject {
  const metadata: KubeObject['metadata'] = { name, namespace: extra.namespace ?? 'default', resourceVersion: rv, uid: extra.uid ?? `uid-${name}` };
  if (extra.generation !== undefined) metadata.generation = extra.generation;
  if (extra.finalizers !== undefined) metadata.finalizers = extra.finalizers;
  if (extra.deletionTimestamp !== undefined) metadata.deletionTimestamp = extra.deletionTimestamp;
  return { apiVersion: widgetKind.apiVersion, kind: widgetKind.kind, metadata, spec: extra.spec ?? {} };
}

/** A list page. */
export function page(items: KubeObject[], rv: string, continueToken?: string): ListObject {
  return { apiVersion: widgetKind.apiVersion, kind: 'WidgetList', metadata: { resourceVersion: rv, continue: continueToken }, items };
}

/** A 410 Gone as the API sends it. */
export function gone(): ApiError {
  return new ApiError({ status: 410, reason: 'Expired', message: 'too old resource version' });
}

type Step<T extends KubeObject> = { event: WatchEvent<T> } | { end: true } | { error: unknown };

/** A watch stream fed by the test: `push` events, then `close()` or `fail(err)`. */
export class FakeWatch<T extends KubeObject = KubeObject> implements WatchResponse<T> {
  stopped = false;
  private readonly steps: Step<T>[] = [];
  private waiter: (() => void) | undefined;

  constructor(signal?: AbortSignal) {
    signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  push(type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', object: T): this {
    return this.step({ event: { type, object } });
  }

  error(error: WatchEvent<T> & { type: 'ERROR' }): this {
    return this.step({ event: error });
  }

  /** The server closes the stream cleanly. */
  close(): this {
    return this.step({ end: true });
  }

  /** The connection breaks: iteration throws `error`. */
  fail(error: unknown): this {
    return this.step({ error });
  }

  stop(): void {
    this.stopped = true;
    this.wake();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return {
      next: async (): Promise<IteratorResult<WatchEvent<T>>> => {
        for (;;) {
          if (this.stopped) return { done: true, value: undefined };
          const step = this.steps.shift();
          if (step === undefined) {
            await new Promise<void>((resolve) => (this.waiter = resolve));
            continue;
          }
          if ('end' in step) {
            this.stopped = true;
            return { done: true, value: undefined };
          }
          if ('error' in step) {
            this.stopped = true;
            throw step.error;
          }
          return { done: false, value: step.event };
        }
      },
      return: async (): Promise<IteratorResult<WatchEvent<T>>> => {
        this.stop();
        return { done: true, value: undefined };
      },
    };
  }

  private step(step: Step<T>): this {
    this.steps.push(step);
    this.wake();
    return this;
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
}

type Reply<R> = R | Error | (() => R | Promise<R>);

/**
 * A ListWatchClient whose answers the test scripts in advance or later: `list`/`watch` calls wait
 * for the next scripted reply. Every call's options are recorded.
 */
export class FakeListWatchClient<T extends KubeObject = KubeObject> implements ListWatchClient<T> {
  readonly listCalls: ListOptions[] = [];
  readonly watchCalls: WatchOptions[] = [];
  /** The watches handed out, in order. */
  readonly watches: FakeWatch<T>[] = [];
  private readonly listReplies: Reply<ListObject<T>>[] = [];
  private readonly watchReplies: (Error | 'new')[] = [];
  private listWaiter: (() => void) | undefined;
  private watchWaiter: (() => void) | undefined;

  /** Scripts the answer of the next list call. */
  replyList(reply: Reply<ListObject<T>>): this {
    this.listReplies.push(reply);
    this.listWaiter?.();
    return this;
  }

  /** Scripts the next watch call: a fresh FakeWatch (default) or an error. */
  replyWatch(reply: Error | 'new' = 'new'): this {
    this.watchReplies.push(reply);
    this.watchWaiter?.();
    return this;
  }

  /** The most recent watch. */
  get watch_(): FakeWatch<T> {
    const w = this.watches[this.watches.length - 1];
    if (!w) throw new Error('no watch opened yet');
    return w;
  }

  async list(_namespace: string, options: ListOptions = {}): Promise<ListObject<T>> {
    this.listCalls.push(options);
    const reply = await this.take(this.listReplies, options.signal, (w) => (this.listWaiter = w));
    if (reply instanceof Error) throw reply;
    if (typeof reply === 'function') return reply();
    // A fresh copy per call: the informer owns what it receives.
    return structuredClone(reply);
  }

  async watch(_namespace: string, options: WatchOptions = {}): Promise<WatchResponse<T>> {
    this.watchCalls.push(options);
    const reply = await this.take(this.watchReplies, options.signal, (w) => (this.watchWaiter = w));
    if (reply instanceof Error) throw reply;
    const watch = new FakeWatch<T>(options.signal);
    this.watches.push(watch);
    return watch;
  }

  private async take<R>(queue: R[], signal: AbortSignal | undefined, setWaiter: (w: () => void) => void): Promise<R> {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const next = queue.shift();
      if (next !== undefined) return next;
      await new Promise<void>((resolve) => {
        setWaiter(resolve);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  }
}

/** One recorded handler call. */
export type Call = { type: 'add' | 'delete'; object: KubeObject } | { type: 'update'; oldObject: KubeObject; object: KubeObject };

/** A handler that records every call (as `add:name@rv`, `update:name@rv->rv`, `delete:name@rv`). */
export class RecordingHandler implements ResourceWatcher {
  readonly calls: Call[] = [];

  async add(_ctx: HandlerContext, object: KubeObject): Promise<void> {
    this.calls.push({ type: 'add', object });
  }

  async update(_ctx: HandlerContext, oldObject: KubeObject, object: KubeObject): Promise<void> {
    this.calls.push({ type: 'update', oldObject, object });
  }

  async delete(_ctx: HandlerContext, object: KubeObject): Promise<void> {
    this.calls.push({ type: 'delete', object });
  }

  /** The calls as short strings. */
  log(): string[] {
    return this.calls.map((c) =>
      c.type === 'update'
        ? `update:${c.object.metadata.name}@${c.oldObject.metadata.resourceVersion}->${c.object.metadata.resourceVersion}`
        : `${c.type}:${c.object.metadata.name}@${c.object.metadata.resourceVersion}`,
    );
  }
}

/**
 * An in-memory PatchClient applying JSON patches like the API server: a failed `test` or a bad
 * path is 422, an unknown object 404; every write bumps the resourceVersion. `beforePatch` lets a
 * test make a concurrent edit just before a patch lands.
 */
export class FakePatchClient<T extends KubeObject = KubeObject> implements PatchClient<T> {
  readonly objects = new Map<string, T>();
  readonly patches: PatchRequest[] = [];
  /** The options of each patch, in the order of `patches` (e.g. `subresource: 'status'`). */
  readonly patchOptions: (WriteOptions | undefined)[] = [];
  readonly gets: Identifier[] = [];
  beforePatch: ((id: Identifier, attempt: number) => void) | undefined;
  /** Errors to throw from the next patches, in order. */
  readonly failPatches: Error[] = [];
  private rv = 100;

  put(object: T): T {
    const stored = structuredClone(object);
    stored.metadata.resourceVersion = String(++this.rv);
    this.objects.set(objectKey(stored), stored);
    return structuredClone(stored);
  }

  /** A concurrent writer: edits the stored object and bumps its resourceVersion. */
  edit(id: Identifier, change: (object: T) => void): void {
    const stored = this.objects.get(key(id));
    if (!stored) throw new Error('no such object');
    change(stored);
    stored.metadata.resourceVersion = String(++this.rv);
  }

  async get(id: Identifier, _options?: RequestOptions): Promise<T> {
    this.gets.push(id);
    const stored = this.objects.get(key(id));
    if (!stored) throw new ApiError({ status: 404, reason: 'NotFound' });
    return structuredClone(stored);
  }

  async patch(id: Identifier, patch: PatchRequest, options?: WriteOptions): Promise<T> {
    this.patches.push(structuredClone(patch));
    this.patchOptions.push(options);
    this.beforePatch?.(id, this.patches.length);
    const failure = this.failPatches.shift();
    if (failure) throw failure;
    const stored = this.objects.get(key(id));
    if (!stored) throw new ApiError({ status: 404, reason: 'NotFound' });
    let next: T;
    try {
      next = applyJsonPatch(structuredClone(stored), patch.operations);
    } catch (cause) {
      throw new ApiError({ status: 422, reason: 'Invalid', message: String(cause) });
    }
    if (stored.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).some((f) => !(stored.metadata.finalizers ?? []).includes(f))) {
      throw new ApiError({ status: 422, reason: 'Invalid', message: 'no new finalizers can be added if the object is being deleted' });
    }
    next.metadata.resourceVersion = String(++this.rv);
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
      this.objects.delete(key(id));
    } else {
      this.objects.set(key(id), next);
    }
    return structuredClone(next);
  }
}

/** RFC 6902 `test`, `add`, `remove`, `replace` (enough for finalizer patches); throws when an operation does not apply. */
export function applyJsonPatch<D>(document: D, operations: PatchOperation[]): D {
  for (const op of operations) {
    const tokens = op.path.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = tokens.pop();
    if (last === undefined) throw new Error(`bad path ${op.path}`);
    let parent: unknown = document;
    for (const t of tokens) {
      parent = (parent as Record<string, unknown> | undefined)?.[t];
      if (parent === undefined || parent === null) throw new Error(`missing path ${op.path}`);
    }
    const container = parent as Record<string, unknown>;
    const list = parent as unknown[];
    const isArray = Array.isArray(parent);
    const index = isArray ? (last === '-' ? list.length : Number(last)) : -1;
    if (isArray && !(Number.isInteger(index) && index >= 0 && index <= list.length)) throw new Error(`bad index ${op.path}`);
    switch (op.op) {
      case 'test': {
        const actual = isArray ? list[index] : container[last];
        if (JSON.stringify(actual) !== JSON.stringify(op.value)) throw new Error(`test failed at ${op.path}`);
        break;
      }
      case 'add':
        if (isArray) list.splice(index, 0, structuredClone(op.value));
        else container[last] = structuredClone(op.value);
        break;
      case 'remove':
        if (isArray) {
          if (index >= list.length) throw new Error(`bad index ${op.path}`);
          list.splice(index, 1);
        } else {
          if (!(last in container)) throw new Error(`missing path ${op.path}`);
          delete container[last];
        }
        break;
      case 'replace':
        if (isArray) list[index] = structuredClone(op.value);
        else container[last] = structuredClone(op.value);
        break;
      default:
        throw new Error(`unsupported op ${op.op}`);
    }
  }
  return document;
}

function key(id: Identifier): string {
  return id.namespace ? `${id.namespace}/${id.name}` : id.name;
}

/** A handler context that never aborts. */
export const testContext: HandlerContext = { signal: new AbortController().signal, logger: noopLogger };
