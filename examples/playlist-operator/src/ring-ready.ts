/**
 * `--replicas N`: before the tour, wait until every replica owns its share of the shard ring, then
 * print who owns which slots (each reconcile line then names its object's slot).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { readShardRingTable, slotsByOwner } from '@kubeloop/operator';
import type { ShardRingLeaseClient, ShardRingRef } from '@kubeloop/operator';
import { TourTimeoutError } from './demo-tour.js';

/** Waits until the ring's slots are all owned, by exactly `replicas`; prints the table. */
export async function waitForRingSpread(
  leases: Pick<ShardRingLeaseClient, 'get'>,
  ring: ShardRingRef,
  replicas: readonly string[],
  options: { timeoutMs: number; signal: AbortSignal; print: (line: string) => void },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let table: string[] = [];
  for (;;) {
    table = await readShardRingTable(leases, ring, { signal: options.signal });
    const owners = slotsByOwner(table);
    if (table.length > 0 && !table.includes('') && owners.size === replicas.length && replicas.every((r) => owners.has(r))) break;
    if (Date.now() > deadline) {
      throw new TourTimeoutError(`the ${replicas.length} replicas did not share ring ${ring.namespace}/${ring.name} within ${options.timeoutMs / 1000} s: slots ${JSON.stringify(table)}`);
    }
    await sleep(250, undefined, { signal: options.signal });
  }
  options.print(`shard ring ${ring.namespace}/${ring.name}: ${replicas.length} replicas own its ${table.length} slots`);
  for (const [owner, slots] of slotsByOwner(table)) options.print(`  ${owner.padEnd(Math.max(...replicas.map((r) => r.length)))}  slots ${slots.join(',')}`);
}
