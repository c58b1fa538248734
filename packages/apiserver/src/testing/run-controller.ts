/** `runController()`: run a controller or an operator in the background of a test, stop it at the end. */

/** Anything with grafana-app-sdk's `Run`: `InformerController`, `Operator`, the front-ends' controllers. */
export interface RunnableController {
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Stops what {@link runController} started: aborts its signal and resolves once `run()` has returned.
 * Rejects with the error `run()` rejected with, whenever that happened (an early failure is not lost).
 * Calling it again returns the same promise.
 */
export type StopController = () => Promise<void>;

/**
 * Starts `controller.run(signal)` without awaiting it and returns the function that stops it, the
 * shape of consul-k8s' `TestControllerRun`. Call the stop function in `finally` / `afterEach`.
 */
export function runController(controller: RunnableController): StopController {
  const abort = new AbortController();
  let outcome: { failed: false } | { failed: true; error: unknown } | undefined;
  const running = controller.run(abort.signal).then(
    () => {
      outcome = { failed: false };
    },
    (error: unknown) => {
      outcome = { failed: true, error };
    },
  );
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      abort.abort();
      await running;
      if (outcome?.failed) throw outcome.error;
    })();
    return stopping;
  };
}
