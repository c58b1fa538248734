/**
 * Where a large request body is parsed. The `yaml` package parses about 1 MB/s, so a body of a few
 * hundred kilobytes of real YAML would hold the event loop, and every other client, for a large
 * part of a second. YAML bodies from {@link offLoopThresholdChars} up are parsed in the server's
 * worker thread (`../worker/off-loop-worker.ts`, which also says what happens when it cannot start
 * or dies), and so are JSON bodies (and JSON documents sent as YAML) from
 * {@link jsonOffLoopThresholdChars} up; smaller ones in the request's own turn. The worker sends
 * the value back in pieces that the event loop parses a few per turn.
 */
import { OffLoopWorker } from '../worker/off-loop-worker.js';
import type { OffLoopWorkerOptions } from '../worker/off-loop-worker.js';
import { jsonParsedOf, yamlParsedOf } from '../worker/off-loop-task.js';
import { parseAsJson, parseYamlText } from '../yaml/yaml-text.js';
import type { YamlParsed } from '../yaml/yaml-text.js';
import { parseJsonText } from './json-text.js';
import type { JsonTextParsed } from './json-text.js';

/**
 * YAML bodies this long (characters) and longer are parsed off the event loop. Measured on the 2-core
 * machine under load (load average 6.5), block YAML in-thread, median and worst of 7: 16 KiB 6 and
 * 7 ms, 32 KiB 25 and 45 ms, 64 KiB 57 and 92 ms (most of the 100 ms a request may hold the loop).
 * Through the worker a 16 KiB body takes about 55 ms but holds the loop at most 12 ms.
 */
export const offLoopThresholdChars = 16 * 1024;

/**
 * JSON bodies this long and longer are parsed off the event loop. `JSON.parse` and the scan for
 * repeated keys take about 1 ms at 64 KiB, 25 ms at 0.7 MB (a Deployment of 20,000 containers).
 */
export const jsonOffLoopThresholdChars = 64 * 1024;

/** How a {@link RequestBodyParser} works. */
export interface RequestBodyParserOptions extends OffLoopWorkerOptions {
  /** YAML bodies this long (characters) and longer go to the worker. Default: {@link offLoopThresholdChars}. */
  readonly offLoopThresholdChars?: number;
  /** The worker to use (the server shares its own). Default: one of this parser's own, made from the other options. */
  readonly worker?: OffLoopWorker;
}

/** Parses a server's request bodies, large ones in its worker thread. */
export class RequestBodyParser {
  readonly #thresholdChars: number;
  readonly #worker: OffLoopWorker;
  #parsedOffLoop = 0;

  constructor(options: RequestBodyParserOptions = {}) {
    this.#thresholdChars = options.offLoopThresholdChars ?? offLoopThresholdChars;
    this.#worker = options.worker ?? new OffLoopWorker(options);
  }

  /** Bodies the worker thread parsed so far. */
  get parsedOffLoop(): number {
    return this.#parsedOffLoop;
  }

  /** Parses a YAML request body: in the worker thread when it is large, else at once. */
  async parseYaml(text: string): Promise<YamlParsed> {
    if (text.length < this.#thresholdChars) return parseYamlText(text);
    if (text.length < jsonOffLoopThresholdChars) {
      const json = parseAsJson(text);
      if (json) return json;
    }
    const { reply, inWorker } = await this.#worker.run({ kind: 'yaml', text });
    if (inWorker) this.#parsedOffLoop++;
    return yamlParsedOf(reply);
  }

  /** Parses a JSON request body (finding repeated keys when asked to): in the worker thread when it is large, else at once. */
  async parseJson(text: string, findDuplicates: boolean): Promise<JsonTextParsed> {
    if (text.length < jsonOffLoopThresholdChars) return parseJsonText(text, findDuplicates);
    const { reply, inWorker } = await this.#worker.run({ kind: 'json', text, findDuplicates });
    if (inWorker) this.#parsedOffLoop++;
    return jsonParsedOf(reply);
  }

  /** Stops the worker (see {@link OffLoopWorker.stop}). */
  stop(): Promise<void> {
    return this.#worker.stop();
  }
}
