/**
 * One embedded API server per `describe` block, for the API server's own tests: started in the
 * suite's `before`, its raw watches closed and the server stopped in its `after`. It registers
 * node:test hooks, so it stays out of `testing/`, the public kit that imports no test runner.
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from './api-server.js';
import type { ApiServer, ApiServerOptions } from './api-server.js';
import { RawWatch, call, widgetCrd } from './testing/test-client.js';
import type { TestResponse } from './testing/test-client.js';

/** Options of {@link serverForSuite}. */
export interface SuiteServerOptions {
  /** Options of the server. Default: `startApiServer`'s defaults. */
  server?: ApiServerOptions;
  /** Whether `before` also registers the Widget CRD of `widgetCrd()` (and asserts it was created). Default: false. */
  widgetCrd?: boolean;
}

/** The suite's server and the calls its tests make; use them inside tests and hooks only. */
export interface SuiteServer {
  /** The running server. */
  readonly server: ApiServer;
  /** Sends one request to the server (`call` with an optional `Content-Type`). */
  readonly req: (method: string, path: string, body?: unknown, contentType?: string) => Promise<TestResponse>;
  /** Opens a raw watch on the server; it is closed when the suite ends. */
  readonly watch: (path: string) => RawWatch;
}

/** Registers the suite's `before` and `after` hooks; call it at the top of a `describe` block. */
export function serverForSuite(options: SuiteServerOptions = {}): SuiteServer {
  let started: ApiServer | undefined;
  const watches: RawWatch[] = [];
  const running = (): ApiServer => {
    if (started === undefined) throw new Error('the suite server is not running: use it inside a test or a hook');
    return started;
  };

  before(async () => {
    started = await startApiServer(options.server);
    if (options.widgetCrd === true) {
      const crd = await call(started.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd());
      assert.equal(crd.status, 201, crd.text);
    }
  });
  after(async () => {
    for (const w of watches) w.close();
    await started?.stop();
  });

  return {
    get server() {
      return running();
    },
    req: (method, path, body, contentType) => call(running().url, method, path, body, contentType ? { contentType } : undefined),
    watch: (path) => {
      const w = new RawWatch(running().url + path);
      watches.push(w);
      return w;
    },
  };
}
