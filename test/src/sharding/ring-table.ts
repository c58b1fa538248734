/**
 * The slot table of a shard ring as the API server holds it (the ring Lease's
 * `kubeloop.dev/shard-slots` annotation), read by the test to know when a hand-over is done.
 */
import type { Client, Lease } from '@kubeloop/resource';
import { assignSlots, readShardRingTable } from '@kubeloop/operator';
import { waitFor } from '../support/wait-for.js';

/** The owner of each slot ('' = free); [] before the ring Lease exists. */
export function readSlotTable(leases: Client<Lease>, namespace: string, ring: string): Promise<string[]> {
  return readShardRingTable(leases, { namespace, name: ring });
}

/**
 * Waits (up to `timeoutMs`) until the table is the one rendezvous hashing assigns to `owners` (each
 * slot owned by the member it should be); returns how long that took.
 */
export async function waitForOwners(leases: Client<Lease>, options: { namespace: string; ring: string; slots: number; owners: readonly string[]; timeoutMs: number }): Promise<number> {
  const since = Date.now();
  let table: string[] = [];
  const expected = JSON.stringify(assignSlots(options.ring, options.slots, options.owners));
  await waitFor(
    async () => {
      table = await readSlotTable(leases, options.namespace, options.ring);
      return JSON.stringify(table) === expected;
    },
    { timeoutMs: options.timeoutMs, intervalMs: 50, what: `the slots of ring ${options.ring} assigned to ${options.owners.join(', ')}` },
  ).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; last table: ${JSON.stringify(table)}, expected ${expected}`);
  });
  return Date.now() - since;
}
