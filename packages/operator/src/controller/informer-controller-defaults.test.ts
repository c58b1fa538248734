import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { realClock } from '../clock.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, DefaultErrorHandler, InformerController, defaultInformerControllerConfig } from './informer-controller.js';
import type { ErrorHandlerContext } from './informer-controller.js';
import type { LogAttributes, Logger } from '../observability/logger.js';
import { consoleLogger, formatLogLine, noopLogger } from '../observability/logger.js';
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

  test('DefaultErrorHandler says what failed and what happens next, with the error text once, on the context logger', () => {
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
    DefaultErrorHandler({ ...ctx, source: 'watcher', attempt: 4, retryAfterMs: undefined }, err);
    DefaultErrorHandler({ ...ctx, attempt: 0, retryAfterMs: undefined }, err);
    DefaultErrorHandler({ ...ctx, source: 'informer', phase: 'watch', objectKey: '', action: '', attempt: 0, retryAfterMs: undefined }, 'not an Error');
    const where = { component: 'InformerController', kind: 'Widget', object: 'default/a', action: 'UPDATE', phase: undefined };
    assert.deepEqual(lines, [
      ['reconciler failed; retry 3 in 20 s', { ...where, error: 'reconcile failed', source: 'reconciler', attempt: 2, retryAfterMs: 20_000 }],
      ['watcher gave up after 5 attempts', { ...where, error: 'reconcile failed', source: 'watcher', attempt: 4, retryAfterMs: undefined }],
      ['reconciler failed; not retried', { ...where, error: 'reconcile failed', source: 'reconciler', attempt: 0, retryAfterMs: undefined }],
      [
        'informer watch failed',
        { component: 'InformerController', error: 'not an Error', kind: 'Widget', object: undefined, action: undefined, source: 'informer', phase: 'watch', attempt: 0, retryAfterMs: undefined },
      ],
    ]);
    const printed = formatLogLine('ERROR', lines[0]![0], lines[0]![1]);
    assert.equal(printed.split('reconcile failed').length - 1, 1, `the error text appears once: ${printed}`);
  });
});
