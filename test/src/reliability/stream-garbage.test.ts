/**
 * Garbage in the watch stream, over real HTTP: malformed JSON, events without an object, objects
 * without metadata or without a name, unknown event types, ERROR events without a Status, written by
 * the API server's `injectWatchLines` fault between real changes. The informer must report each
 * (a typed error, counted in `informer_decode_errors_total`), resume, and lose nothing: its
 * handlers converge to the server's list, with no phantom object. Bounded in time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InformerMetrics } from '@kubeloop/operator';
import { TempDirs } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { NAMESPACE, ReliabilityCluster } from './cluster.js';
import { ConfigMapController } from './configmap-controller.js';
import { HandlerRecord } from './handler-record.js';
import { mirrorWatcher } from './operator-under-test.js';

/** Lines a broken server, proxy or disk could produce; none is a valid event. */
const GARBAGE: readonly string[] = [
  'this is not JSON',
  '{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"torn',
  '[1,2,3]',
  '"a string"',
  'null',
  '{"type":"ADDED"}',
  '{"type":"MODIFIED","object":null}',
  '{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1"}}',
  '{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":null}}',
  '{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}}',
  '{"type":"DELETED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"namespace":"default"}}}',
  '{"type":"SURPRISE","object":{"metadata":{"name":"x"}}}',
  '{"type":"ERROR"}',
  '{"object":{"metadata":{"name":"no-type"}}}',
];

describe('reliability: garbage in the watch stream', () => {
  const temp = new TempDirs();
  let cluster: ReliabilityCluster;

  before(async () => {
    cluster = await ReliabilityCluster.start(await temp.make('garbage'));
  });

  after(async () => {
    await cluster.stop();
    await temp.removeAll();
  });

  test('malformed lines and objects without metadata are reported and counted, the watch resumes, nothing is lost or invented', { timeout: 60_000 }, async () => {
    const metrics = new InformerMetrics();
    const harness = new ConfigMapController(cluster, { metrics });
    const record = new HandlerRecord('mirror', 'version');
    harness.controller.addWatcher(mirrorWatcher(record, 'configmap'), 'configmaps');
    let problems: string[];
    let convergedAfterMs: number;
    try {
      await harness.start();
      for (let i = 0; i < GARBAGE.length; i++) {
        const name = `g-${i % 5}`;
        const id = { namespace: NAMESPACE, name };
        await waitFor(() => cluster.faults.injectWatchLines([GARBAGE[i]!], { resource: 'configmaps' }) > 0, {
          timeoutMs: 5_000,
          intervalMs: 5,
          what: 'an open ConfigMap watch to write garbage into',
        });
        // A real change right behind the garbage: it must arrive, on this watch or after the resume.
        if (i < 5) await cluster.configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { v: String(i) } });
        else if (i % 4 === 3) await cluster.configMaps.delete(id).catch(() => undefined);
        else await cluster.configMaps.patch(id, { merge: { data: { v: String(i) } } }).catch(() => undefined);
      }
      const wrote = Date.now();
      await harness.converged(record, 'the mirror to equal the server');
      convergedAfterMs = Date.now() - wrote;
    } finally {
      problems = await harness.stop();
    }
    assert.deepEqual(problems, [], 'no unhandled rejection or uncaught exception; the controller never stopped by itself');
    assert.deepEqual(record.violations, []);
    const decodeErrors = (await metrics.decodeErrorsTotal.get()).values.reduce((n, v) => n + v.value, 0);
    const watchErrors = harness.errors.filter((e) => e.ctx.source === 'informer' && e.ctx.phase === 'watch');
    assert.ok(decodeErrors >= 1, 'decode errors are counted');
    assert.ok(watchErrors.length >= 1, 'decode errors are reported to the errorHandler');
    assert.ok(
      harness.errors.every((e) => e.err instanceof Error),
      `every reported error is an Error: ${harness.errors.map((e) => String(e.err)).join('; ')}`,
    );
    console.log(`stream garbage: ${GARBAGE.length} garbage lines injected, ${decodeErrors} decode errors counted, ${watchErrors.length} watch errors reported, converged ${convergedAfterMs} ms after the last write, 0 objects lost, 0 invented`);
  });
});
