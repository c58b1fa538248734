/** Test support of the watch line decoder's tests: feed chunks, collect what comes out. */
import type { WatchEvent } from '../client/types.js';
import { WatchLineDecoder } from './watch-line-decoder.js';

/** Feeds `chunks` to `decoder` (default: a new one), ends the stream, and returns every event and error it gave. */
export function decodeAll(chunks: readonly Buffer[], decoder = new WatchLineDecoder()): WatchEvent[] {
  const out: WatchEvent[] = [];
  for (const chunk of chunks) decoder.decode(chunk, out);
  decoder.end(out);
  return out;
}
