import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InformerController } from './informer-controller.js';
import { noopLogger } from '../observability/logger.js';
import { FakeInformer, deferred, waitFor, widget } from '../testing/fake-informer.js';

describe('ControllerLifecycle', () => {
  test('many concurrent handler calls listening on the controller signal raise no "possible memory leak" warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on('warning', onWarning);
    const release = deferred();
    let listening = 0;
    const controller = new InformerController({ maxConcurrentWorkers: 25, logger: noopLogger });
    const informer = new FakeInformer();
    controller.addInformer(informer, 'widgets');
    controller.addWatcher(
      {
        // As a handler does when it passes ctx.signal to a request: one abort listener per call in flight.
        add: async (ctx) => {
          const onAbort = (): void => undefined;
          ctx.signal.addEventListener('abort', onAbort);
          listening++;
          await release.promise;
          ctx.signal.removeEventListener('abort', onAbort);
        },
        update: async () => undefined,
        delete: async () => undefined,
      },
      'widgets',
    );
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    try {
      for (let i = 0; i < 25; i++) informer.add(widget(`w${i}`));
      await waitFor(() => listening === 25);
      // Warnings are emitted on the next turn.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message),
        [],
      );
    } finally {
      release.resolve();
      stop.abort();
      await running;
      process.off('warning', onWarning);
    }
  });
});
