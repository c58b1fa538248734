/**
 * A shard ring's slot table as the API server holds it (the ring Lease's `kubeloop.dev/shard-slots`
 * annotation), for whoever wants to know who owns what: a status page, a demo, a test waiting for
 * a hand-over to finish.
 */
import { isNotFound } from '@kubeloop/resource';
import type { ShardRingLeaseClient } from './shard-ring.js';
import { shardSlotsAnnotation } from './shard-ring.js';

/** Which ring to read. */
export interface ShardRingRef {
  /** The ring's name (`ShardRingOptions.name`). */
  readonly name: string;
  /** The namespace of its Leases. */
  readonly namespace: string;
}

/** The owner of each slot ('' = free); [] before the ring has one. */
export async function readShardRingTable(leases: Pick<ShardRingLeaseClient, 'get'>, ring: ShardRingRef, options: { signal?: AbortSignal | undefined } = {}): Promise<string[]> {
  try {
    const lease = await leases.get({ namespace: ring.namespace, name: `${ring.name}-slots` }, options);
    const parsed: unknown = JSON.parse(lease.metadata.annotations?.[shardSlotsAnnotation] ?? '[]');
    return Array.isArray(parsed) ? parsed.map((owner) => (typeof owner === 'string' ? owner : '')) : [];
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

/** Each owner's slots, ascending, owners in the order of their first slot (free slots left out). */
export function slotsByOwner(table: readonly string[]): Map<string, number[]> {
  const owners = new Map<string, number[]>();
  table.forEach((owner, slot) => {
    if (owner === '') return;
    const slots = owners.get(owner) ?? [];
    slots.push(slot);
    owners.set(owner, slots);
  });
  return owners;
}
