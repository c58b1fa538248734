/**
 * Where a YAML request body is parsed. The `yaml` package parses about 1 MB/s, so a body of a few
 * hundred kilobytes of real YAML would hold the event loop, and every other client, for a large
 * part of a second. Bodies from {@link offLoopThresholdChars} up are parsed in the server's worker
 * thread (`../worker/off-loop-worker.ts`, which also says what happens when it cannot start or
 * dies); smaller ones, and JSON documents sent as YAML (parsed by `JSON.parse` in milliseconds), in
 * the request's own turn.
 */
import { OffLoopWorker } from '../worker/off-loop-worker.js';
import type { OffLoopWorkerOptions } from '../worker/off-loop-worker.js';
import { yamlParsedOf } from '../worker/off-loop-task.js';
import { parseAsJson, parseYamlText } from './yaml-text.js';
import type { YamlParsed } from './yaml-text.js';

/**
 * Bodies this long (characters) and longer are parsed off the event loop. Measured on the 2-core
 * machine under load (load average 6.5), block YAML in-thread, median and worst of 7: 16 KiB 6 and
 * 7 ms, 32 KiB 25 and 45 ms, 64 KiB 57 and 92 ms (most of the 100 ms a request may hold the loop).
 * Through the worker a 16 KiB body takes about 55 ms but holds the loop at most 12 ms.
 */
export const offLoopThresholdChars = 16 * 1024;

/** How a {@link YamlBodyParser} works. */
export interface YamlBodyParserOptions extends OffLoopWorkerOptions {
  /** Bodies this long (characters) and longer go to the worker. Default: {@link offLoopThresholdChars}. */
  readonly offLoopThresholdChars?: number;
  /** The worker to use (the server shares its own). Default: one of this parser's own, made from the other options. */
  readonly worker?: OffLoopWorker;
}

/** Parses a server's YAML request bodies, large ones in its worker thread. */
export class YamlBodyParser {
  readonly #thresholdChars: number;
  readonly #worker: OffLoopWorker;
  #parsedOffLoop = 0;

  constructor(options: YamlBodyParserOptions = {}) {
    this.#thresholdChars = options.offLoopThresholdChars ?? offLoopThresholdChars;
    this.#worker = options.worker ?? new OffLoopWorker(options);
  }

  /** Bodies the worker thread parsed so far. */
  get parsedOffLoop(): number {
    return this.#parsedOffLoop;
  }

  /** Parses a YAML request body: in the worker thread when it is large and not JSON, else at once. */
  async parse(text: string): Promise<YamlParsed> {
    const json = parseAsJson(text);
    if (json) return json;
    if (text.length < this.#thresholdChars) return parseYamlText(text);
    const { reply, inWorker } = await this.#worker.run({ kind: 'yaml', text });
    if (inWorker) this.#parsedOffLoop++;
    return yamlParsedOf(reply);
  }

  /** Stops the worker (see {@link OffLoopWorker.stop}). */
  stop(): Promise<void> {
    return this.#worker.stop();
  }
}
