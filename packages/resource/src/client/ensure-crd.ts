/**
 * `ensureCrd()`: install a CustomResourceDefinition (or bring an installed one up to date) and wait
 * until the API server serves its kind, as an operator does at start-up and a test before its
 * first object. A real API server answers 404 for a new kind for a moment after the create.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeloopError, isAlreadyExists, isConflict, isNotFound } from '../errors.js';
import { CustomResourceDefinitionKind, kindFromCustomResourceDefinition } from '../kinds/custom-resource-definition.js';
import type { CustomResourceDefinition } from '../kinds/custom-resource-definition.js';
import { Client } from './client.js';
import type { Transport } from './transport.js';

/** Options of {@link ensureCrd}. */
export interface EnsureCrdOptions {
  /** Aborts the requests and the wait. Default: none. */
  signal?: AbortSignal | undefined;
  /** How long to wait for the CRD to be Established and its kind served. Default: 30000 ms. */
  timeoutMs?: number | undefined;
  /** Time between two checks while waiting. Default: 100 ms. */
  pollIntervalMs?: number | undefined;
}

/** How often an update that lost a race (409) is tried again. */
const UPDATE_ATTEMPTS = 5;

/**
 * Creates `crd`, or updates the installed CRD of that name when its spec, labels or annotations lack
 * what `crd` sets (fields the server defaulted are not a difference); then waits until the CRD's
 * `Established` condition is `True` and a list of its kind (storage version) answers.
 * Resolves with the CRD as stored once it is served.
 * @throws KubeloopError code `CrdNotReady` when the names are rejected (`NamesAccepted` False) or the
 *   wait exceeds `timeoutMs`; `ApiError` for a refused create or update (e.g. 422 for an invalid CRD).
 */
export async function ensureCrd(transport: Transport, crd: CustomResourceDefinition, options: EnsureCrdOptions = {}): Promise<CustomResourceDefinition> {
  const { signal } = options;
  const crds = new Client(CustomResourceDefinitionKind, transport);
  const name = crd.metadata.name;
  for (let attempt = 1; ; attempt++) {
    try {
      await crds.create(crd, { signal });
      break;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    const existing = await crds.get({ namespace: '', name }, { signal });
    if (contains(existing.spec, crd.spec) && contains(existing.metadata.labels, crd.metadata.labels) && contains(existing.metadata.annotations, crd.metadata.annotations)) break;
    try {
      await crds.update(
        {
          ...existing,
          metadata: { ...existing.metadata, labels: { ...existing.metadata.labels, ...crd.metadata.labels }, annotations: { ...existing.metadata.annotations, ...crd.metadata.annotations } },
          spec: crd.spec,
        },
        { signal },
      );
      break;
    } catch (error) {
      // Someone else changed it meanwhile (or deleted it): read it again and decide again.
      if (!(isConflict(error) || isNotFound(error)) || attempt >= UPDATE_ATTEMPTS) throw error;
    }
  }

  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  const kindClient = new Client(kindFromCustomResourceDefinition(crd), transport);
  let waitingFor = 'the Established condition';
  for (;;) {
    const stored = await crds.get({ namespace: '', name }, { signal });
    const conditions = stored.status?.conditions ?? [];
    const namesAccepted = conditions.find((c) => c.type === 'NamesAccepted');
    if (namesAccepted?.status === 'False') {
      throw new KubeloopError('CrdNotReady', `CustomResourceDefinition ${name}: names not accepted: ${namesAccepted.message ?? namesAccepted.reason ?? ''}`);
    }
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) {
      waitingFor = `the API server to serve ${kindClient.kind.plural}.${kindClient.kind.group}`;
      try {
        await kindClient.list('', { limit: 1, signal });
        return stored;
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    if (Date.now() >= deadline) throw new KubeloopError('CrdNotReady', `CustomResourceDefinition ${name}: gave up after ${timeoutMs} ms waiting for ${waitingFor}`);
    await sleep(options.pollIntervalMs ?? 100, undefined, { signal });
  }
}

/** Whether `actual` has every field `wanted` sets, with the same value (objects compared field by field). */
function contains(actual: unknown, wanted: unknown): boolean {
  if (wanted === undefined) return true;
  if (Array.isArray(wanted)) {
    return Array.isArray(actual) && actual.length === wanted.length && wanted.every((item, i) => contains(actual[i], item));
  }
  if (typeof wanted === 'object' && wanted !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    return Object.entries(wanted).every(([key, value]) => contains((actual as Record<string, unknown>)[key], value));
  }
  return actual === wanted;
}
