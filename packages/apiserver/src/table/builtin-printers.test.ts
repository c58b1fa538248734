import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { configMapPrinter, eventPrinter, leasePrinter, namespacePrinter, secretPrinter } from './builtin-printers.js';
import type { TablePrinter } from './table-printer.js';

const now = Date.parse('2024-05-01T12:00:00Z');
const created = '2024-05-01T11:00:00Z';

function obj(fields: Record<string, unknown>, name = 'x'): KubeObject {
  return { apiVersion: 'v1', kind: 'Thing', metadata: { name, creationTimestamp: created }, ...fields };
}

function headers(printer: TablePrinter, wide = false): string[] {
  return printer.columnDefinitions.filter((c) => wide || c.priority === 0).map((c) => c.name.toUpperCase());
}

describe('built-in printers', () => {
  test('namespaces show their phase', () => {
    assert.deepEqual(headers(namespacePrinter), ['NAME', 'STATUS', 'AGE']);
    assert.deepEqual(namespacePrinter.cells(obj({ status: { phase: 'Terminating' } }, 'ns1'), now), ['ns1', 'Terminating', '60m']);
  });

  test('configmaps count the keys of data and binaryData', () => {
    assert.deepEqual(headers(configMapPrinter), ['NAME', 'DATA', 'AGE']);
    assert.deepEqual(configMapPrinter.cells(obj({ data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }), now), ['x', 3, '60m']);
    assert.deepEqual(configMapPrinter.cells(obj({}), now), ['x', 0, '60m']);
  });

  test('secrets show their type and count their data keys', () => {
    assert.deepEqual(headers(secretPrinter), ['NAME', 'TYPE', 'DATA', 'AGE']);
    assert.deepEqual(secretPrinter.cells(obj({ type: 'kubernetes.io/tls', data: { 'tls.crt': 'AA==', 'tls.key': 'AA==' } }), now), ['x', 'kubernetes.io/tls', 2, '60m']);
  });

  test('leases show their holder, empty when free', () => {
    assert.deepEqual(headers(leasePrinter), ['NAME', 'HOLDER', 'AGE']);
    assert.deepEqual(leasePrinter.cells(obj({ spec: { holderIdentity: 'node-a' } }), now), ['x', 'node-a', '60m']);
    assert.deepEqual(leasePrinter.cells(obj({ spec: {} }), now), ['x', '', '60m']);
  });

  describe('events', () => {
    test('show LAST SEEN, TYPE, REASON, OBJECT and MESSAGE, and the wide columns after', () => {
      assert.deepEqual(headers(eventPrinter), ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
      assert.deepEqual(headers(eventPrinter, true), ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
      const event = obj(
        {
          involvedObject: { kind: 'Playlist', name: 'morning', fieldPath: 'spec.items[0]' },
          reason: 'Synced',
          message: '  rendered  \n',
          type: 'Normal',
          source: { component: 'playlist-operator', host: 'node-a' },
          firstTimestamp: '2024-05-01T11:50:00Z',
          lastTimestamp: '2024-05-01T11:59:00Z',
          count: 4,
        },
        'morning.17c',
      );
      assert.deepEqual(eventPrinter.cells(event, now), ['60s', 'Normal', 'Synced', 'playlist/morning', 'spec.items[0]', 'playlist-operator, node-a', 'rendered', '10m', 4, 'morning.17c']);
    });

    test('fall back from lastTimestamp to firstTimestamp to eventTime, count a singleton as 1 and take a series as it is', () => {
      const newStyle = obj({ involvedObject: { kind: 'Node' }, eventTime: '2024-05-01T11:58:00.000000Z', reportingComponent: 'kubelet', reportingInstance: 'n1' });
      const cells = eventPrinter.cells(newStyle, now);
      assert.deepEqual([cells[0], cells[3], cells[5], cells[7], cells[8]], ['2m', 'node', 'kubelet, n1', '2m', 1]);
      const series = obj({ eventTime: '2024-05-01T11:00:00.000000Z', series: { count: 12, lastObservedTime: '2024-05-01T11:59:30.000000Z' }, source: { component: 'op' } });
      const seriesCells = eventPrinter.cells(series, now);
      assert.deepEqual([seriesCells[0], seriesCells[5], seriesCells[7], seriesCells[8]], ['30s', 'op', '60m', 12]);
      assert.equal(eventPrinter.cells(obj({}), now)[0], '<unknown>');
    });
  });
});
