/** Installs (or updates) a CustomResourceDefinition and waits until the API serves its kind. */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, CustomResourceDefinitionKind, isAlreadyExists, isNotFound, kindFromCustomResourceDefinition } from '@kubeloop/resource';
import type { CustomResourceDefinition, Transport } from '@kubeloop/resource';

/** Options of {@link installCrd}. */
export interface InstallCrdOptions {
  signal?: AbortSignal | undefined;
  /** How long to wait for the kind to be served. Default: 30000. */
  timeoutMs?: number | undefined;
}

/**
 * Creates the CRD, or brings an existing one's spec up to date, then polls a list of the new
 * kind until it answers (a real API server needs a moment to start serving a new CRD).
 */
export async function installCrd(transport: Transport, crd: CustomResourceDefinition, options: InstallCrdOptions = {}): Promise<void> {
  const crds = new Client(CustomResourceDefinitionKind, transport);
  try {
    await crds.create(crd, { signal: options.signal });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const existing = await crds.get({ namespace: '', name: crd.metadata.name }, { signal: options.signal });
    if (JSON.stringify(existing.spec) !== JSON.stringify(crd.spec)) await crds.update({ ...existing, spec: crd.spec }, { signal: options.signal });
  }
  const kind = new Client(kindFromCustomResourceDefinition(crd), transport);
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    try {
      await kind.list('', { limit: 1, signal: options.signal });
      return;
    } catch (error) {
      if (!isNotFound(error) || Date.now() > deadline) throw error;
    }
    await sleep(100, undefined, { signal: options.signal });
  }
}
