import type { KubeObject } from '@kubeloop/resource';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../observability/logger.js';
import { Controller } from './resource-controller.js';
import type { Resource } from './resource.js';

/** Options of {@link testControllerRun}. */
export interface TestControllerRunOptions {
  /** Where the controller logs. Default: `consoleLogger`. */
  log?: Logger | undefined;
  /** Source of time for retries (a `VirtualClock` in tests). Default: `realClock`. */
  clock?: Clock | undefined;
}

/**
 * Runs a {@link Controller} for `resource` in the background, for tests (consul-k8s
 * `controller.TestControllerRun`). Call the returned function to stop it: it resolves once the
 * controller (and its backgrounder) stopped, and rejects if the controller failed.
 */
export function testControllerRun<T extends KubeObject>(resource: Resource<T>, options: TestControllerRunOptions = {}): () => Promise<void> {
  const controller = new Controller<T>({ resource, log: options.log, clock: options.clock });
  const abort = new AbortController();
  let failure: { error: unknown } | undefined;
  // Settled here so that a failure before stop() is not an unhandled rejection; stop() rethrows it.
  const done = controller.run(abort.signal).catch((error: unknown) => {
    failure = { error };
  });
  return async () => {
    abort.abort();
    await done;
    if (failure !== undefined) throw failure.error;
  };
}
