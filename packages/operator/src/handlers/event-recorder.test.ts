import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kubeloop/resource';
import type { Event, Identifier, MergePatchRequest } from '@kubeloop/resource';
import { VirtualClock } from '../clock.js';
import { ClientEventRecorder } from './event-recorder.js';
import type { EventClient } from './event-recorder.js';
import { widget } from '../testing/fake-informer.js';
import { recordingLogger } from '../testing/recording-logger.js';

class FakeEventClient implements EventClient {
  readonly events = new Map<string, Event>();
  readonly writes: string[] = [];
  failCreates = 0;

  async create(event: Event): Promise<Event> {
    this.writes.push(`create ${event.metadata.name}`);
    if (this.failCreates-- > 0) throw new Error('apiserver down');
    const key = `${event.metadata.namespace}/${event.metadata.name}`;
    if (this.events.has(key)) throw new ApiError({ status: 409, reason: 'AlreadyExists' });
    this.events.set(key, structuredClone(event));
    return event;
  }

  async patch(id: Identifier, patch: MergePatchRequest): Promise<Event> {
    this.writes.push(`patch ${id.name}`);
    const stored = this.events.get(`${id.namespace}/${id.name}`);
    if (!stored) throw new ApiError({ status: 404, reason: 'NotFound' });
    Object.assign(stored, patch.merge);
    return stored;
  }
}

describe('ClientEventRecorder', () => {
  test('writes a core/v1 Event about the object, in its namespace', async () => {
    const client = new FakeEventClient();
    const clock = new VirtualClock(Date.UTC(2024, 0, 2, 3, 4, 5));
    const recorder = new ClientEventRecorder(client, { component: 'my-operator', host: 'pod-1', clock });
    const obj = widget('a', { namespace: 'ns1' });
    obj.metadata.uid = 'uid-1';
    recorder.recordEvent(obj, 'Normal', 'Created', 'External resource created');
    await recorder.flush();
    const [event] = [...client.events.values()];
    assert.ok(event);
    assert.equal(event.metadata.namespace, 'ns1');
    assert.match(event.metadata.name, /^a\.[0-9a-f]+$/);
    assert.deepEqual(event.involvedObject, { apiVersion: 'test.kubeloop.dev/v1', kind: 'Widget', name: 'a', namespace: 'ns1', uid: 'uid-1', resourceVersion: '1' });
    assert.equal(event.type, 'Normal');
    assert.equal(event.reason, 'Created');
    assert.equal(event.message, 'External resource created');
    assert.equal(event.count, 1);
    assert.equal(event.firstTimestamp, '2024-01-02T03:04:05Z');
    assert.deepEqual(event.source, { component: 'my-operator', host: 'pod-1' });
    assert.equal(event.reportingComponent, 'my-operator');
  });

  test('repeats of one event increase its count instead of creating new Events', async () => {
    const client = new FakeEventClient();
    const clock = new VirtualClock(1_700_000_000_000);
    const recorder = new ClientEventRecorder(client, { clock });
    const obj = widget('a');
    for (let i = 0; i < 3; i++) {
      recorder.recordEvent(obj, 'Warning', 'Failed', 'boom');
      await clock.advance(1000);
    }
    recorder.recordEvent(obj, 'Warning', 'Failed', 'another message');
    await recorder.flush();
    assert.equal(client.events.size, 2);
    const counts = [...client.events.values()].map((e) => [e.message, e.count]);
    assert.deepEqual(counts, [
      ['boom', 3],
      ['another message', 1],
    ]);
  });

  test('an aggregated Event that vanished is created again', async () => {
    const client = new FakeEventClient();
    const recorder = new ClientEventRecorder(client);
    const obj = widget('a');
    recorder.recordEvent(obj, 'Normal', 'Synced', 'ok');
    await recorder.flush();
    client.events.clear();
    recorder.recordEvent(obj, 'Normal', 'Synced', 'ok');
    await recorder.flush();
    assert.equal(client.events.size, 1);
    assert.equal([...client.events.values()][0]?.count, 1);
  });

  test('events of one millisecond get distinct names', async () => {
    const client = new FakeEventClient();
    const recorder = new ClientEventRecorder(client, { clock: new VirtualClock(5) });
    for (let i = 0; i < 5; i++) recorder.recordEvent(widget('a'), 'Normal', 'Step', `step ${i}`);
    await recorder.flush();
    assert.equal(client.events.size, 5);
  });

  test('a failed write is logged and dropped, never thrown', async () => {
    const client = new FakeEventClient();
    client.failCreates = 1;
    const logger = recordingLogger();
    const recorder = new ClientEventRecorder(client, { logger });
    recorder.recordEvent(widget('a'), 'Normal', 'One', 'first');
    recorder.recordEvent(widget('a'), 'Normal', 'Two', 'second');
    await recorder.flush();
    assert.deepEqual(logger.at('warn').map((line) => line.message), ['could not record event']);
    assert.deepEqual(
      [...client.events.values()].map((e) => e.reason),
      ['Two'],
    );
  });

  test('more than maxPending waiting writes are dropped and counted', async () => {
    const client = new FakeEventClient();
    const recorder = new ClientEventRecorder(client, { maxPending: 2 });
    for (let i = 0; i < 5; i++) recorder.recordEvent(widget('a'), 'Normal', 'R', `m${i}`);
    await recorder.flush();
    assert.equal(recorder.dropped, 3);
    assert.equal(client.events.size, 2);
  });

  test('events about cluster-scoped objects go to the default namespace; long messages are cut', async () => {
    const client = new FakeEventClient();
    const recorder = new ClientEventRecorder(client);
    const node = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } };
    recorder.recordEvent(node, 'Normal', 'Labelled', 'x'.repeat(5000));
    await recorder.flush();
    const [event] = [...client.events.values()];
    assert.equal(event?.metadata.namespace, 'default');
    assert.equal(event?.involvedObject.namespace, undefined);
    assert.equal(event?.message?.length, 1024);
  });
});
