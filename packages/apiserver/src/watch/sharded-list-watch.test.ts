import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ShardSelector, shardHash, shardRanges, splitShardSpace } from '@kubeloop/resource';
import { waitFor, widgetsPath } from '../testing/test-client.js';
import type { ReceivedEvent, TestResponse } from '../testing/test-client.js';
import { serverForSuite } from '../suite-server.test-helper.js';
import { initialEventsEndAnnotation, initialEventsListBlueprintAnnotation } from './watch-request.js';

const cms = '/api/v1/namespaces/shards/configmaps';
const [lowHalf, highHalf] = splitShardSpace(2).map((range) => shardRanges([range])) as [ShardSelector, ShardSelector];
const q = (selector: ShardSelector | string): string => `shardSelector=${encodeURIComponent(String(selector))}`;
const names = (res: TestResponse): string[] => (res.body.items as { metadata: { name: string } }[]).map((i) => i.metadata.name);
const uidsIn = (res: TestResponse): string[] => (res.body.items as { metadata: { uid: string } }[]).map((i) => i.metadata.uid);
const inLowHalf = (uid: string): boolean => shardHash(uid) < 0x8000000000000000n;

describe('sharded list and watch (KEP-5866)', () => {
  const suite = serverForSuite({ widgetCrd: true });
  const { req } = suite;
  /** name -> uid of the ConfigMaps made in `before`. */
  const uids = new Map<string, string>();

  before(async () => {
    assert.equal((await req('POST', '/api/v1/namespaces', { metadata: { name: 'shards' } })).status, 201);
    for (let i = 0; i < 24; i++) {
      const res = await req('POST', cms, { metadata: { name: `cm-${String(i).padStart(2, '0')}`, labels: { parity: i % 2 === 0 ? 'even' : 'odd' } } });
      assert.equal(res.status, 201, res.text);
      uids.set(res.body.metadata.name, res.body.metadata.uid);
    }
    for (let i = 0; i < 8; i++) {
      const res = await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: `w-${i}` }, spec: { replicas: 1 } });
      assert.equal(res.status, 201, res.text);
    }
  });

  test('a LIST returns the objects whose uid hashes into the range, and echoes the selector in metadata.shardInfo', async () => {
    const low = await req('GET', `${cms}?${q(lowHalf)}`);
    const high = await req('GET', `${cms}?${q(highHalf)}`);
    assert.equal(low.status, 200, low.text);
    assert.deepEqual(low.body.metadata.shardInfo, { selector: lowHalf.toString() });
    assert.deepEqual(high.body.metadata.shardInfo, { selector: highHalf.toString() });
    for (const uid of uidsIn(low)) assert.ok(inLowHalf(uid), uid);
    for (const uid of uidsIn(high)) assert.ok(!inLowHalf(uid), uid);
    assert.deepEqual([...names(low), ...names(high)].sort(), [...uids.keys()].sort(), 'the halves partition the list');
    const full = await req('GET', cms);
    assert.equal(full.body.metadata.shardInfo, undefined, 'no shardInfo without a shardSelector');
  });

  test('custom resources, both field paths, || between ranges, written as the client likes', async () => {
    const lowWidgets = await req('GET', `${widgetsPath()}?${q(lowHalf)}`);
    const highWidgets = await req('GET', `${widgetsPath()}?${q(highHalf)}`);
    assert.equal(lowWidgets.status, 200, lowWidgets.text);
    assert.equal(names(lowWidgets).length + names(highWidgets).length, 8);
    for (const uid of uidsIn(lowWidgets)) assert.ok(inLowHalf(uid));
    // Both halves joined by ||, spaced and quoted otherwise: every object, the canonical text echoed.
    const both = "shardRange(object.metadata.uid,\"0x0000000000000000\",'0x8000000000000000')||shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')";
    const all = await req('GET', `${cms}?${q(both)}`);
    assert.equal(names(all).length, 24);
    assert.equal(all.body.metadata.shardInfo.selector, `${lowHalf.toString()} || ${highHalf.toString()}`);
    // By namespace: every object of the namespace "shards" is on the side its name hashes to.
    const nsHash = shardHash('shards');
    const nsSide = nsHash < 0x8000000000000000n ? 'low' : 'high';
    const byNs = (sel: ShardSelector): ShardSelector => ShardSelector.parse(sel.toString().replace('object.metadata.uid', 'object.metadata.namespace'));
    const nsLow = await req('GET', `/api/v1/configmaps?${q(byNs(lowHalf))}&fieldSelector=metadata.namespace%3Dshards`);
    assert.equal(names(nsLow).length, nsSide === 'low' ? 24 : 0);
  });

  test('combined with label and field selectors: the intersection', async () => {
    const res = await req('GET', `${cms}?${q(lowHalf)}&labelSelector=parity%3Deven&fieldSelector=metadata.name!%3Dcm-00`);
    const expected = [...uids].filter(([name, uid]) => inLowHalf(uid) && Number(name.slice(3)) % 2 === 0 && name !== 'cm-00').map(([name]) => name);
    assert.deepEqual(names(res), expected.sort());
  });

  test('a malformed selector is 400 with the reason, on LIST, WATCH and DELETE of a collection', async () => {
    const cases: [string, string][] = [
      ["shardRange(object.metadata.uid, '0x0', '0x8000000000000000')", 'invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)'],
      ["shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')", 'invalid shard selector: unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace'],
      ['   ', 'invalid shard selector: empty shard selector is not allowed; omit the parameter for unfiltered lists'],
      // kube-apiserver answers 500 here (see the README's deliberate differences): a client mistake is a 400.
      [
        `${lowHalf.toString()} || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')`,
        'invalid shard selector: all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"',
      ],
    ];
    for (const [selector, message] of cases) {
      for (const [method, query] of [['GET', ''], ['GET', 'watch=true&'], ['DELETE', '']] as const) {
        const res = await req(method, `${cms}?${query}${q(selector)}`);
        assert.equal(res.status, 400, `${method} ${query} ${selector}: ${res.text}`);
        assert.equal(res.body.reason, 'BadRequest');
        assert.equal(res.body.message, message);
      }
    }
    assert.equal(names(await req('GET', cms)).length, 24, 'nothing was deleted');
  });

  test('pagination: every page of one shard, at the first page snapshot; a token of another shard is 400', async () => {
    const whole = names(await req('GET', `${cms}?${q(lowHalf)}`));
    const seen: string[] = [];
    let res = await req('GET', `${cms}?${q(lowHalf)}&limit=3`);
    const firstRv = res.body.metadata.resourceVersion;
    // Written between pages: not in this list (every page reads the first page's resourceVersion).
    const late = await req('POST', cms, { metadata: { name: 'late-one' } });
    let pages = 0;
    for (;;) {
      pages++;
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.metadata.shardInfo, { selector: lowHalf.toString() });
      assert.equal(res.body.metadata.resourceVersion, firstRv);
      assert.equal(res.body.metadata.remainingItemCount, undefined, 'a filtered list cannot count what is left');
      seen.push(...names(res));
      const token = res.body.metadata.continue as string | undefined;
      if (!token) break;
      const other = await req('GET', `${cms}?${q(highHalf)}&limit=3&continue=${encodeURIComponent(token)}`);
      assert.equal(other.status, 400);
      assert.match(other.body.message, /^invalid continue token: it continues a list with shardSelector "shardRange\(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'\)", but this request has shardSelector ".*0x8000000000000000', '0x10000000000000000'\)"/);
      const none = await req('GET', `${cms}?limit=3&continue=${encodeURIComponent(token)}`);
      assert.equal(none.status, 400);
      assert.match(none.body.message, /but this request has no shardSelector/);
      res = await req('GET', `${cms}?${q(lowHalf)}&limit=3&continue=${encodeURIComponent(token)}`);
    }
    assert.deepEqual(seen, whole);
    assert.ok(pages >= 2, `${pages} pages`);
    // A token of an unsharded list is refused on a sharded request too.
    const plain = await req('GET', `${cms}?limit=2`);
    const mixed = await req('GET', `${cms}?${q(lowHalf)}&limit=2&continue=${encodeURIComponent(plain.body.metadata.continue)}`);
    assert.equal(mixed.status, 400);
    assert.match(mixed.body.message, /it continues a list with no shardSelector/);
    assert.equal((await req('DELETE', `${cms}/late-one`)).status, 200, late.text);
  });

  test('resourceVersion semantics: an Exact list of an older state is sharded too', async () => {
    const before = (await req('GET', `${cms}?${q(lowHalf)}`)).body.metadata.resourceVersion as string;
    const made = await req('POST', cms, { metadata: { name: 'exact-new' } });
    const old = await req('GET', `${cms}?${q(lowHalf)}&resourceVersion=${before}&resourceVersionMatch=Exact`);
    assert.equal(old.status, 200, old.text);
    assert.equal(old.body.metadata.resourceVersion, before);
    assert.ok(!names(old).includes('exact-new'));
    for (const uid of uidsIn(old)) assert.ok(inLowHalf(uid));
    const now = await req('GET', `${cms}?${q(inLowHalf(made.body.metadata.uid) ? lowHalf : highHalf)}`);
    assert.ok(names(now).includes('exact-new'));
    assert.equal((await req('DELETE', `${cms}/exact-new`)).status, 200);
  });

  test('WATCH: live and resumed changes of the shard only; the counters count sharded watches and filtered events', async () => {
    const start = suite.server.connectionStats().shardCounters;
    const rv = (await req('GET', cms)).body.metadata.resourceVersion as string;
    const low = await suite.watch(`${cms}?watch=true&resourceVersion=${rv}&${q(lowHalf)}`).ready();
    const high = await suite.watch(`${cms}?watch=true&resourceVersion=${rv}&${q(highHalf)}`).ready();
    const made = new Map<string, string>();
    for (let i = 0; i < 10; i++) {
      const res = await req('POST', cms, { metadata: { name: `live-${i}` } });
      made.set(res.body.metadata.name, res.body.metadata.uid);
    }
    await req('PATCH', `${cms}/live-0`, { data: { x: '1' } }, 'application/merge-patch+json');
    await req('DELETE', `${cms}/live-1`);
    const expectFor = (lowSide: boolean): string[] => {
      const out: string[] = [];
      for (const [name, uid] of made) if (inLowHalf(uid) === lowSide) out.push(`ADDED ${name}`);
      if (inLowHalf(made.get('live-0')!) === lowSide) out.push('MODIFIED live-0');
      if (inLowHalf(made.get('live-1')!) === lowSide) out.push('DELETED live-1');
      return out;
    };
    const show = (events: ReceivedEvent[]): string[] => events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata.name}`);
    const total = expectFor(true).length + expectFor(false).length;
    await low.waitForEvents(expectFor(true).length);
    await high.waitForEvents(expectFor(false).length);
    // A resumed watch of the low half gets the same changes from the kept history.
    const resumed = await suite.watch(`${cms}?watch=true&resourceVersion=${rv}&${q(lowHalf)}`).ready();
    await resumed.waitForEvents(expectFor(true).length);
    const marker = await req('POST', cms, { metadata: { name: 'live-marker' } });
    const markerWatch = inLowHalf(marker.body.metadata.uid) ? low : high;
    await markerWatch.waitForEvents(markerWatch.events.length + 1);
    assert.deepEqual(show(low.events).filter((e) => e !== 'ADDED live-marker'), expectFor(true));
    assert.deepEqual(show(high.events).filter((e) => e !== 'ADDED live-marker'), expectFor(false));
    assert.deepEqual(show(resumed.events).slice(0, expectFor(true).length), expectFor(true));
    const counters = suite.server.connectionStats().shardCounters;
    assert.equal(counters.apiserver_watch_shards_total - start.apiserver_watch_shards_total, 3);
    // Every change of a high-half object is filtered by the two low-half watches, every change of a low-half one by the high-half watch.
    const lowChanges = expectFor(true).length + (markerWatch === low ? 1 : 0);
    const highChanges = total - expectFor(true).length + (markerWatch === high ? 1 : 0);
    const filtered = (): number => suite.server.connectionStats().shardCounters.apiserver_watch_filtered_events_total - start.apiserver_watch_filtered_events_total;
    await waitFor(() => filtered() === 2 * highChanges + lowChanges, { message: `filtered ${filtered()}, expected ${2 * highChanges + lowChanges}` });
    assert.equal(filtered(), 2 * highChanges + lowChanges);
  });

  test('sendInitialEvents: the shard initial events, then the initial-events-end bookmark carrying shardInfo in the list blueprint', async () => {
    const w = suite.watch(`${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&${q(highHalf)}`);
    const events = await w.waitForEvents(1);
    await waitFor(() => events.some((e) => e.type === 'BOOKMARK'));
    const end = events.find((e) => e.type === 'BOOKMARK')!;
    const initial = events.slice(0, events.indexOf(end));
    const expected = names(await req('GET', `${cms}?${q(highHalf)}`));
    assert.deepEqual(initial.map((e) => String(e.object.metadata.name)).sort(), expected.sort());
    assert.equal(end.object.metadata.annotations[initialEventsEndAnnotation], 'true');
    const blueprint = JSON.parse(Buffer.from(end.object.metadata.annotations[initialEventsListBlueprintAnnotation], 'base64').toString('utf8'));
    assert.deepEqual(blueprint, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { shardInfo: { selector: highHalf.toString() } }, items: null });
    // Without a shard, the bookmark has no blueprint (as before).
    const plain = suite.watch(`${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=none%3Dnone`);
    const [plainEnd] = await plain.waitForEvents(1);
    assert.deepEqual(Object.keys(plainEnd!.object.metadata.annotations), [initialEventsEndAnnotation]);
  });

  test('bookmarks reach a sharded watch (they carry no object to filter)', async () => {
    const w = suite.watch(`${cms}?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&${q(lowHalf)}&resourceVersion=${suite.server.resourceVersion()}`);
    const [bookmark] = await w.waitForEvents(1, 5000);
    assert.equal(bookmark!.type, 'BOOKMARK');
  });
});

describe('a server without sharded list and watch (shardedListAndWatch: false)', () => {
  const suite = serverForSuite({ server: { shardedListAndWatch: false } });
  const { req } = suite;

  test('ignores shardSelector, even a malformed one, and sends no shardInfo: the full list and stream', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    for (let i = 0; i < 6; i++) assert.equal((await req('POST', path, { metadata: { name: `off-${i}` } })).status, 201);
    const listed = await req('GET', `${path}?${q(lowHalf)}`);
    assert.equal(listed.status, 200);
    assert.equal(names(listed).length, 6);
    assert.equal(listed.body.metadata.shardInfo, undefined);
    assert.equal((await req('GET', `${path}?${q('garbage(')}`)).status, 200);
    const w = suite.watch(`${path}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&${q(lowHalf)}`);
    const events = await w.waitForEvents(7);
    assert.equal(events.filter((e) => e.type === 'ADDED').length, 6);
    assert.deepEqual(Object.keys(events[6]!.object.metadata.annotations), [initialEventsEndAnnotation]);
    assert.deepEqual(suite.server.connectionStats().shardCounters, { apiserver_watch_shards_total: 0, apiserver_watch_filtered_events_total: 0 });
  });
});
