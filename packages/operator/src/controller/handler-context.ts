/**
 * The context an `InformerController` passes to each handler call: the controller's signal and a
 * logger bound to the object (`kind`, `object` = `namespace/name`). The logger is made on first use,
 * so a handler that does not log costs one small object per call.
 */
import { objectKey } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { withAttributes } from '../observability/logger.js';
import type { Logger } from '../observability/logger.js';
import type { HandlerContext } from '../handlers/resource-watcher.js';

/** A {@link HandlerContext} about one object. */
export class ObjectHandlerContext implements HandlerContext {
  readonly signal: AbortSignal;
  readonly isInInitialList: boolean | undefined;
  readonly stillOwned: (() => boolean) | undefined;
  readonly #base: Logger;
  readonly #object: KubeObject;
  #logger: Logger | undefined;

  constructor(signal: AbortSignal, base: Logger, object: KubeObject, isInInitialList?: boolean, stillOwned?: () => boolean) {
    this.signal = signal;
    this.isInInitialList = isInInitialList;
    this.stillOwned = stillOwned;
    this.#base = base;
    this.#object = object;
  }

  /** The controller's logger with `kind` and `object` (`namespace/name`) on every line. */
  get logger(): Logger {
    this.#logger ??= withAttributes(this.#base, { kind: this.#object.kind, object: objectKey(this.#object) });
    return this.#logger;
  }
}
