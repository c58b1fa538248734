/**
 * Kubernetes Events about objects (what `kubectl describe` shows): the small recorder interface that
 * handlers depend on (client-go `record.EventRecorder`), and a recorder that writes core/v1 Events.
 *
 * Flow of {@link ClientEventRecorder}: `recordEvent` returns at once; writes run one at a time in the
 * background. The first occurrence of an (object, type, reason, message) creates an Event; repeats
 * patch its `count` and `lastTimestamp` (client-go's aggregation), so a failing reconcile loop does not
 * flood the namespace.
 * Guarantees: never throws into the caller and never blocks it; failed writes are logged and dropped;
 * at most `maxPending` writes wait (more are dropped and counted in `dropped`).
 */
import { formatTime, isNotFound } from '@kubeloop/resource';
import type { Event, Identifier, KubeObject, MergePatchRequest, RequestOptions, WriteOptions } from '@kubeloop/resource';
import { realClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { InvalidArgumentError } from '../errors.js';
import { noopLogger } from '../observability/logger.js';
import type { Logger } from '../observability/logger.js';

/** The type of an Event: `Normal` for progress, `Warning` for problems. */
export type EventType = 'Normal' | 'Warning';

/** Records Events about objects (client-go `record.EventRecorder.Event`). Implementations must not throw. */
export interface EventRecorder {
  /**
   * Records that `reason` (short, UpperCamelCase, e.g. `Created`) happened to `object`, with a
   * human-readable `message`.
   */
  recordEvent(object: KubeObject, type: EventType, reason: string, message: string): void;
}

/** What {@link ClientEventRecorder} needs: `Client<Event>` of @kubeloop/resource fits. */
export interface EventClient {
  create(event: Event, options?: WriteOptions): Promise<Event>;
  patch(id: Identifier, patch: MergePatchRequest<Event>, options?: WriteOptions & RequestOptions): Promise<Event>;
}

/** Options of {@link ClientEventRecorder}. */
export interface ClientEventRecorderOptions {
  /** `source.component` and `reportingComponent` of the Events, e.g. your operator's name. Default: 'kubeloop'. */
  component?: string | undefined;
  /** `source.host` and `reportingInstance`, e.g. the pod name. Default: none. */
  host?: string | undefined;
  /** Where Events about cluster-scoped objects go (client-go uses `default`). Default: 'default'. */
  clusterScopedNamespace?: string | undefined;
  /** Writes allowed to wait; more are dropped. Default: 1000 (client-go's buffer). */
  maxPending?: number | undefined;
  /** Distinct events remembered for aggregation (oldest forgotten first). Default: 4096. */
  maxAggregated?: number | undefined;
  /** Source of the timestamps. Default: `realClock`. */
  clock?: Clock | undefined;
  /** Where failed writes are logged. Default: `noopLogger`. */
  logger?: Logger | undefined;
}

/** Longest `reason` and `message` accepted by the API; longer ones are cut. */
const MAX_REASON = 128;
const MAX_MESSAGE = 1024;

interface Aggregate {
  namespace: string;
  name: string;
  count: number;
}

/** Writes core/v1 Events through a client. See the module documentation for the flow. */
export class ClientEventRecorder implements EventRecorder {
  /** Events dropped because `maxPending` writes were waiting. */
  dropped = 0;

  private readonly client: EventClient;
  private readonly component: string;
  private readonly host: string | undefined;
  private readonly clusterScopedNamespace: string;
  private readonly maxPending: number;
  private readonly maxAggregated: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly aggregates = new Map<string, Aggregate>();
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;
  private seq = 0;

  /** @throws InvalidArgumentError when `client` is missing or a limit is not a positive integer. */
  constructor(client: EventClient, options: ClientEventRecorderOptions = {}) {
    if (client == null) throw new InvalidArgumentError('client cannot be nil');
    this.client = client;
    this.component = options.component ?? 'kubeloop';
    this.host = options.host;
    this.clusterScopedNamespace = options.clusterScopedNamespace ?? 'default';
    this.maxPending = options.maxPending ?? 1000;
    this.maxAggregated = options.maxAggregated ?? 4096;
    if (!Number.isInteger(this.maxPending) || this.maxPending < 1) throw new InvalidArgumentError('maxPending must be an integer >= 1');
    if (!Number.isInteger(this.maxAggregated) || this.maxAggregated < 1) throw new InvalidArgumentError('maxAggregated must be an integer >= 1');
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? noopLogger;
  }

  recordEvent(object: KubeObject, type: EventType, reason: string, message: string): void {
    if (object?.metadata == null) return;
    if (this.pending >= this.maxPending) {
      this.dropped++;
      return;
    }
    this.pending++;
    const at = this.clock.now();
    const write = (): Promise<void> => this.write(object, type, reason.slice(0, MAX_REASON), message.slice(0, MAX_MESSAGE), at);
    this.tail = this.tail.then(write).then(
      () => {
        this.pending--;
      },
      () => {
        this.pending--;
      },
    );
  }

  /** Resolves once every event recorded so far has been written (or has failed). */
  flush(): Promise<void> {
    return this.tail;
  }

  private async write(object: KubeObject, type: EventType, reason: string, message: string, at: number): Promise<void> {
    const meta = object.metadata;
    const key = `${meta.uid ?? ''}\u0000${object.kind}\u0000${meta.namespace ?? ''}\u0000${meta.name}\u0000${type}\u0000${reason}\u0000${message}`;
    const time = formatTime(new Date(at));
    const known = this.aggregates.get(key);
    try {
      if (known !== undefined) {
        try {
          await this.client.patch({ namespace: known.namespace, name: known.name }, { merge: { count: known.count + 1, lastTimestamp: time } });
          known.count++;
          // Map order is insertion order: re-insert to keep recently used entries longest.
          this.aggregates.delete(key);
          this.aggregates.set(key, known);
          return;
        } catch (err) {
          // The Event expired (TTL) or was deleted: start a new one.
          if (!isNotFound(err)) throw err;
          this.aggregates.delete(key);
        }
      }
      const namespace = meta.namespace || this.clusterScopedNamespace;
      const name = `${meta.name}.${this.uniqueSuffix(at)}`;
      const event: Event = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: meta.name,
          ...(meta.namespace ? { namespace: meta.namespace } : {}),
          ...(meta.uid ? { uid: meta.uid } : {}),
          ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
        },
        reason,
        message,
        type,
        source: this.host ? { component: this.component, host: this.host } : { component: this.component },
        firstTimestamp: time,
        lastTimestamp: time,
        count: 1,
        reportingComponent: this.component,
        reportingInstance: this.host ?? '',
      };
      await this.client.create(event);
      this.aggregates.set(key, { namespace, name, count: 1 });
      if (this.aggregates.size > this.maxAggregated) {
        const oldest = this.aggregates.keys().next();
        if (!oldest.done) this.aggregates.delete(oldest.value);
      }
    } catch (err) {
      this.logger.warn('could not record event', { reason, object: `${meta.namespace ?? ''}/${meta.name}`, error: err });
    }
  }

  /** client-go names Events `<object>.<unix nanoseconds in hex>`; a sequence number keeps names of one millisecond apart. */
  private uniqueSuffix(at: number): string {
    this.seq = (this.seq + 1) % 1_000_000;
    return (BigInt(Math.floor(at)) * 1_000_000n + BigInt(this.seq)).toString(16);
  }
}

/** An {@link EventRecorder} that discards every event. */
export const noopEventRecorder: EventRecorder = { recordEvent: () => {} };
