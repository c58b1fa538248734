/** Reading a ring's slot table from its ring Lease, and grouping it by owner. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kubeloop/resource';
import type { Identifier } from '@kubeloop/resource';
import type { LeaderLease } from '../runtime/leader-elector.js';
import { readShardRingTable, slotsByOwner } from './ring-table.js';
import { shardSlotsAnnotation } from './shard-ring.js';

const lease = (annotation: string | undefined): LeaderLease =>
  ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'ring-slots', namespace: 'ops', ...(annotation !== undefined && { annotations: { [shardSlotsAnnotation]: annotation } }) }, spec: {} });

describe('ring table', () => {
  test('the ring Lease `<ring>-slots` of the namespace holds the table; none yet is an empty table', async () => {
    const asked: Identifier[] = [];
    const table = await readShardRingTable({ get: async (id) => (asked.push(id), lease('["a","","b","a"]')) }, { name: 'ring', namespace: 'ops' });
    assert.deepEqual(table, ['a', '', 'b', 'a']);
    assert.deepEqual(asked, [{ namespace: 'ops', name: 'ring-slots' }]);
    assert.deepEqual(await readShardRingTable({ get: async () => lease(undefined) }, { name: 'ring', namespace: 'ops' }), []);
    const missing = { get: async (): Promise<LeaderLease> => Promise.reject(new ApiError({ status: 404 })) };
    assert.deepEqual(await readShardRingTable(missing, { name: 'ring', namespace: 'ops' }), []);
    await assert.rejects(readShardRingTable({ get: async () => Promise.reject(new Error('boom')) }, { name: 'ring', namespace: 'ops' }), /boom/);
  });

  test('slotsByOwner groups the slots of each owner, ascending, and leaves free slots out', () => {
    assert.deepEqual([...slotsByOwner(['b', '', 'a', 'b', 'a'])], [['b', [0, 3]], ['a', [2, 4]]]);
    assert.deepEqual([...slotsByOwner([])], []);
  });
});
