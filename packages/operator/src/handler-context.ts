/**
 * The context an `InformerController` passes to each handler call: the controller's signal and a
 * logger bound to the object (`kind`, `object` = `namespace/name`). The logger is made on first use,
 * so a handler that does not log costs one small object per call.
 */
import { objectKey } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { withAttributes } from './logger.js';
import type { Logger } from './logger.js';
import type { HandlerContext } from './resource-watcher.js';

/** A {@link HandlerContext} about one object. */
export class ObjectHandlerContext implements HandlerContext {
  readonly signal: AbortSignal;
  readonly #base: Logger;
  readonly #object: KubeObject;
  #logger: Logger | undefined;

  constructor(signal: AbortSignal, base: Logger, object: KubeObject) {
    this.signal = signal;
    this.#base = base;
    this.#object = object;
  }

  /** The controller's logger with `kind` and `object` (`namespace/name`) on every line. */
  get logger(): Logger {
    this.#logger ??= withAttributes(this.#base, { kind: this.#object.kind, object: objectKey(this.#object) });
    return this.#logger;
  }
}
