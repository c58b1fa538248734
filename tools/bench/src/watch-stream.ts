/**
 * Pre-generated list and watch bodies. Generated once per scenario, in the server process, so that
 * serving an event costs one `res.write` of bytes that already exist.
 */
import { SENT_AT_ANNOTATION, makeBenchObject, touchBenchObject, type BenchObject } from './bench-objects.js';
import { SeededRandom } from './seeded-random.js';

/** What to generate. */
export interface WatchStreamSpec {
  /** Number of objects in the list. */
  objects: number;
  /** Number of MODIFIED events in the watch stream (each modifies one seeded-random object). */
  events: number;
  /** PRNG seed. Default: 42. */
  seed?: number | undefined;
  /**
   * Give every watch event a {@link SENT_AT_PLACEHOLDER} annotation, for a server that stamps each line
   * with the time it writes it ({@link stampSentAt}). Default: false.
   */
  sentAtPlaceholder?: boolean | undefined;
}

/**
 * The value of the send-time annotation in a generated event, replaced when the line is written. As wide
 * as `epochMillis().toFixed(3)` (13 digits, a point, 3 decimals, until the year 2286), so that stamping
 * changes neither the line's length nor its validity as JSON.
 */
export const SENT_AT_PLACEHOLDER = '0000000000000.000';

/** A copy of `line` with its {@link SENT_AT_PLACEHOLDER} replaced by `epochMs`. Throws if the line has none. */
export function stampSentAt(line: Buffer, epochMs: number): Buffer {
  const at = line.indexOf(SENT_AT_PLACEHOLDER);
  if (at < 0) throw new Error('the line has no send-time placeholder (generate it with sentAtPlaceholder: true)');
  const text = epochMs.toFixed(3).padStart(SENT_AT_PLACEHOLDER.length, '0');
  if (text.length !== SENT_AT_PLACEHOLDER.length) throw new RangeError(`${epochMs} does not fit the send-time placeholder`);
  const copy = Buffer.from(line);
  copy.write(text, at, 'latin1');
  return copy;
}

/** Lines stored back to back in one buffer; line `i` is `bytes[offsets[i] .. offsets[i+1])`, newline included. */
export interface LineBuffer {
  readonly bytes: Buffer;
  readonly offsets: Float64Array;
  readonly count: number;
}

/** A generated stream. Resource versions: objects 1..objects, the list at `listResourceVersion`, events after it. */
export interface WatchStream {
  /** The list response body (`ConfigMapList`); items carry no apiVersion/kind, as kube-apiserver sends them. */
  readonly listBody: Buffer;
  /** Each list item's JSON, for paginated lists (see {@link listPage}). */
  readonly itemJson: readonly string[];
  readonly listResourceVersion: number;
  /** One `ADDED` line per object, for watches that start from resourceVersion '' or '0'. */
  readonly addedLines: LineBuffer;
  /** The `MODIFIED` lines; event `i` has resourceVersion `listResourceVersion + 1 + i`. */
  readonly eventLines: LineBuffer;
  /** resourceVersion of the last event: a consumer has seen everything when it sees this one. */
  readonly markerResourceVersion: string;
  /** Mean JSON size of a listed object, bytes. */
  readonly meanObjectBytes: number;
}

/** Appends lines to a growing buffer. */
class LineBufferBuilder {
  private bytes: Buffer;
  private length = 0;
  private readonly offsets: Float64Array;
  private count = 0;

  constructor(expectedLines: number, expectedLineBytes: number) {
    this.bytes = Buffer.allocUnsafe(Math.max(1024, expectedLines * expectedLineBytes));
    this.offsets = new Float64Array(expectedLines + 1);
  }

  push(line: string): void {
    const need = Buffer.byteLength(line) + 1;
    if (this.length + need > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + need));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    this.length += this.bytes.write(line, this.length);
    this.bytes[this.length++] = 10;
    this.offsets[++this.count] = this.length;
  }

  build(): LineBuffer {
    return { bytes: this.bytes.subarray(0, this.length), offsets: this.offsets, count: this.count };
  }
}

/** Line `i` of `lines` (a view, not a copy). */
export function lineAt(lines: LineBuffer, i: number): Buffer {
  return lines.bytes.subarray(lines.offsets[i], lines.offsets[i + 1]);
}

/**
 * The body of the list page holding items `[from, to)`: a `continue` token (the next index) and
 * `remainingItemCount` when more follow, as kube-apiserver answers `limit`.
 */
export function listPage(itemJson: readonly string[], resourceVersion: number, from: number, to: number): Buffer {
  const end = Math.min(to, itemJson.length);
  const more = end < itemJson.length ? `,"continue":"${end}","remainingItemCount":${itemJson.length - end}` : '';
  return Buffer.from(
    `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"${resourceVersion}"${more}},"items":[${itemJson.slice(from, end).join(',')}]}`,
  );
}

/** Generates the list and the watch stream described by `spec`. Deterministic for a given seed. */
export function generateWatchStream(spec: WatchStreamSpec): WatchStream {
  const rng = new SeededRandom(spec.seed ?? 42);
  const objects: BenchObject[] = [];
  for (let i = 0; i < spec.objects; i++) objects.push(makeBenchObject(rng, i, i + 1));
  const listResourceVersion = spec.objects;
  const fullJson = objects.map((o) => JSON.stringify(o));
  const meanObjectBytes = fullJson.reduce((n, s) => n + Buffer.byteLength(s), 0) / Math.max(1, spec.objects);
  // A list item is the object without apiVersion and kind (the list carries them); a watch event has them.
  const itemJson = objects.map(({ apiVersion: _a, kind: _k, ...rest }) => JSON.stringify(rest));
  const added = new LineBufferBuilder(spec.objects, meanObjectBytes + 40);
  for (const json of fullJson) added.push(`{"type":"ADDED","object":${json}}`);
  // Events only: the list and the ADDED lines describe the objects before any stamped write.
  if (spec.sentAtPlaceholder === true) for (const obj of objects) obj.metadata.annotations[SENT_AT_ANNOTATION] = SENT_AT_PLACEHOLDER;
  const events = new LineBufferBuilder(spec.events, meanObjectBytes + 80);
  const revisions = new Uint32Array(spec.objects).fill(1);
  for (let i = 0; i < spec.events; i++) {
    const index = rng.int(spec.objects);
    const obj = objects[index]!;
    touchBenchObject(obj, listResourceVersion + 1 + i, ++revisions[index]!);
    events.push(`{"type":"MODIFIED","object":${JSON.stringify(obj)}}`);
  }
  return {
    listBody: listPage(itemJson, listResourceVersion, 0, itemJson.length),
    itemJson,
    listResourceVersion,
    addedLines: added.build(),
    eventLines: events.build(),
    markerResourceVersion: String(listResourceVersion + spec.events),
    meanObjectBytes,
  };
}
