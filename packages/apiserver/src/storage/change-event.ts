/**
 * One stored change, as watchers see it. Each event line is built and UTF-8 encoded once and the
 * same bytes are shared by every watcher that receives it (this server feeds our benchmarks:
 * per-watcher work on the hot path is one `res.write`).
 */
import type { KubeObject } from '@kubeloop/resource';
import { partialObjectMetadataJson } from '../objects/partial-object-metadata.js';
import type { PartialMetadataVersion } from '../objects/partial-object-metadata.js';
import { singleObjectTableJson } from '../table/table-encoding.js';
import type { TableFormat } from '../table/table-encoding.js';

/** An object as stored: the parsed object (never mutated once stored) and its JSON. */
export interface StoredObject {
  readonly object: KubeObject;
  readonly json: string;
  /** The object's resourceVersion as a number. */
  readonly rv: number;
  /** Store key: `namespace/name` or `name`. */
  readonly key: string;
}

/** The watch event types a stored change produces. */
export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** Builds `{"type":T,"object":...}\n` from an object's JSON without re-serializing the object. */
export function eventLine(type: string, objectJson: string): string {
  return `{"type":"${type}","object":${objectJson}}\n`;
}

/** Rewrites an object's JSON for another served version (CRDs with several versions, no conversion). */
export function jsonAtApiVersion(stored: StoredObject, apiVersion: string): string {
  if (stored.object.apiVersion === apiVersion) return stored.json;
  return JSON.stringify({ ...stored.object, apiVersion });
}

/** A change of one object with the resourceVersion it was stored at. */
export class ChangeEvent {
  readonly type: ChangeType;
  readonly rv: number;
  /** The new state; for DELETED the last state, carrying the deletion's resourceVersion. */
  readonly current: StoredObject;
  /** The state before the change (MODIFIED and DELETED). */
  readonly previous: StoredObject | undefined;
  #lines: Map<string, Buffer> | undefined;
  #line: Buffer | undefined;

  constructor(type: ChangeType, current: StoredObject, previous: StoredObject | undefined) {
    this.type = type;
    this.rv = current.rv;
    this.current = current;
    this.previous = previous;
  }

  /** The event's own line at the storage version: built once, shared by every watcher. */
  line(): Buffer {
    this.#line ??= Buffer.from(eventLine(this.type, this.current.json), 'utf8');
    return this.#line;
  }

  /**
   * A line with another type, version or encoding: ADDED for a watcher whose selector the object
   * just entered, DELETED (with the previous content at this event's resourceVersion) for one it
   * left; with `table`, the object as a one-row Table (with column definitions when `headers`).
   * Each variant is built once and shared by every watcher that needs it.
   */
  lineAs(type: ChangeType, apiVersion: string, table?: TableFormat, headers = false): Buffer {
    if (!table && type === this.type && apiVersion === this.current.object.apiVersion) return this.line();
    const cacheKey = table ? `${type} ${apiVersion} ${table.key} ${headers}` : `${type} ${apiVersion}`;
    this.#lines ??= new Map();
    let line = this.#lines.get(cacheKey);
    if (line === undefined) {
      const { object, json } = this.#objectFor(type, apiVersion);
      const body = table ? singleObjectTableJson(table, object, json, headers, Date.now()) : json();
      line = Buffer.from(eventLine(type, body), 'utf8');
      this.#lines.set(cacheKey, line);
    }
    return line;
  }

  /** The event line with a `PartialObjectMetadata` of `metadataApiVersion` as its object (a metadata-only watch). */
  metadataLineAs(type: ChangeType, metadataApiVersion: PartialMetadataVersion): Buffer {
    const cacheKey = `${type} ${metadataApiVersion} metadata`;
    this.#lines ??= new Map();
    let line = this.#lines.get(cacheKey);
    if (line === undefined) {
      line = Buffer.from(eventLine(type, partialObjectMetadataJson(metadataApiVersion, this.#objectFor(type, metadataApiVersion).object)), 'utf8');
      this.#lines.set(cacheKey, line);
    }
    return line;
  }

  /** The object an event of `type` carries: the current state, or the previous one leaving a filtered watch (at the change's resourceVersion). */
  #objectFor(type: ChangeType, apiVersion: string): { object: KubeObject; json: () => string } {
    if (type === 'DELETED' && this.type !== 'DELETED' && this.previous) {
      const prev = this.previous.object;
      const leaving: KubeObject = { ...prev, apiVersion, metadata: { ...prev.metadata, resourceVersion: String(this.rv) } };
      return { object: leaving, json: () => JSON.stringify(leaving) };
    }
    return { object: this.current.object, json: () => jsonAtApiVersion(this.current, apiVersion) };
  }
}
