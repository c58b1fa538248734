/**
 * Child process: the ceiling. `JSON.parse` of the same watch lines, already decoded to strings, with no I/O
 * at all: how fast any consumer could go if reading, splitting and caching were free.
 */
import { runChildMain } from '../child-runtime.js';
import { mark } from '../measure.js';
import { generateWatchStream, lineAt, type WatchStreamSpec } from '../watch-stream.js';

/** Result of the JSON.parse-only run. */
export interface JsonParseOnlyResult {
  events: number;
  seconds: number;
  cpuSeconds: number;
}

const BATCH = 10_000;

runChildMain<WatchStreamSpec>(async (spec) => {
  const stream = generateWatchStream(spec);
  const lines = stream.eventLines;
  let seconds = 0;
  let cpuSeconds = 0;
  let sink = 0;
  for (let from = 0; from < lines.count; from += BATCH) {
    // Decoding to strings is not timed: only the parse is.
    const batch: string[] = [];
    for (let i = from; i < Math.min(lines.count, from + BATCH); i++) batch.push(lineAt(lines, i).toString('utf8', 0, lineAt(lines, i).length - 1));
    const start = mark();
    for (const line of batch) sink += (JSON.parse(line) as { type: string }).type.length;
    const end = mark();
    seconds += end.wall - start.wall;
    cpuSeconds += end.cpu - start.cpu;
  }
  if (sink === 0) throw new Error('parsed nothing');
  return { events: lines.count, seconds, cpuSeconds } satisfies JsonParseOnlyResult;
});
