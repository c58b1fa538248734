/** The `coordination.k8s.io/v1` Lease kind, used for leader election. */
import { defineKindFor } from '../define-kind.js';
import type { KubeObject } from '../object.js';

/** `Lease.spec`. Times are MicroTime strings (see `formatMicroTime`). */
export interface LeaseSpec {
  /** The identity of the current holder; absent when nobody holds the lease. */
  holderIdentity?: string;
  /** How long a holder may go without renewing before others may take over. */
  leaseDurationSeconds?: number;
  /** MicroTime when the current holder acquired the lease. */
  acquireTime?: string;
  /** MicroTime of the holder's last renewal. */
  renewTime?: string;
  /** How many times the lease changed holders. */
  leaseTransitions?: number;
  /** Coordinated leader election strategy, e.g. `OldestEmulationVersion`. */
  strategy?: string;
  /** The holder a coordinated election would like to hand over to. */
  preferredHolder?: string;
}

/** A Lease object. It has no status. */
export type Lease = KubeObject<LeaseSpec, never>;

/** `coordination.k8s.io/v1` Lease: namespaced, plural `leases`. */
export const LeaseKind = defineKindFor<Lease>({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' });
