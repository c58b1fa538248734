import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { realClock } from '../clock.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, DefaultErrorHandler, InformerController, defaultInformerControllerConfig } from './informer-controller.js';
import type { ErrorHandlerContext } from './informer-controller.js';
import type { LogAttributes, Logger } from '../observability/logger.js';
import { consoleLogger, noopLogger } from '../observability/logger.js';
import { OpinionatedRetryDequeuePolicy } from '../queue/retry-dequeue-policy.js';
import { DefaultRetryPolicy } from '../queue/retry-policy.js';
import { DEFAULT_MAX_CONCURRENT_WORKERS } from '../queue/work-queue.js';

describe('InformerController defaults', () => {
  test('defaultInformerControllerConfig sets every option to the default the controller uses', () => {
    const config = defaultInformerControllerConfig();
    assert.deepEqual(config, {
      errorHandler: DefaultErrorHandler,
      retryPolicy: DefaultRetryPolicy,
      retryDequeuePolicy: OpinionatedRetryDequeuePolicy,
      maxConcurrentWorkers: DEFAULT_MAX_CONCURRENT_WORKERS,
      clock: realClock,
      metricsNamespace: undefined,
      shutdownTimeoutMs: DEFAULT_SHUTDOWN_TIMEOUT_MS,
      logger: consoleLogger,
    });
    assert.equal(DEFAULT_MAX_CONCURRENT_WORKERS, 10);
    assert.equal(DEFAULT_SHUTDOWN_TIMEOUT_MS, 30_000);
    const fromDefaults = new InformerController(config);
    const bare = new InformerController();
    assert.equal(fromDefaults.errorHandler, bare.errorHandler);
    assert.equal(fromDefaults.retryPolicy, bare.retryPolicy);
    assert.equal(fromDefaults.retryDequeuePolicy, bare.retryDequeuePolicy);
    assert.notEqual(defaultInformerControllerConfig(), config, 'a fresh object each time: changing one does not change the defaults');
  });

  test('DefaultErrorHandler logs the message on the context logger with component InformerController and where it failed', () => {
    const lines: [string, LogAttributes | undefined][] = [];
    const logger: Logger = { ...noopLogger, error: (message, attributes) => lines.push([message, attributes]) };
    const err = new Error('reconcile failed');
    const ctx: ErrorHandlerContext = {
      signal: new AbortController().signal,
      logger,
      resourceKind: 'Widget',
      objectKey: 'default/a',
      action: 'UPDATE',
      source: 'reconciler',
      phase: undefined,
      attempt: 2,
      retryAfterMs: 20_000,
    };
    DefaultErrorHandler(ctx, err);
    DefaultErrorHandler({ ...ctx, source: 'informer', phase: 'watch', objectKey: '', action: '', attempt: 0, retryAfterMs: undefined }, 'not an Error');
    assert.deepEqual(lines, [
      [
        'reconcile failed',
        { component: 'InformerController', error: err, kind: 'Widget', object: 'default/a', action: 'UPDATE', source: 'reconciler', phase: undefined, attempt: 2, retryAfterMs: 20_000 },
      ],
      [
        'not an Error',
        { component: 'InformerController', error: 'not an Error', kind: 'Widget', object: '', action: '', source: 'informer', phase: 'watch', attempt: 0, retryAfterMs: undefined },
      ],
    ]);
  });
});
