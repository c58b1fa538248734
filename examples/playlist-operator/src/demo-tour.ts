/**
 * The scripted part of the demo: apply the samples, watch them converge, edit one, delete one.
 * It only talks to the API server, like a user with kubectl would: what it reports is what the
 * cluster says, whichever operator instance leads.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlreadyExists, isConflict, isNotFound } from '@kubeloop/resource';
import type { Client, ConfigMap } from '@kubeloop/resource';
import type { PlaylistCatalogue } from './catalogue.js';
import type { Playlist } from './playlist.js';
import { configMapNameOf } from './playlist-reconciler.js';
import { DELETED_SAMPLE, EDITED_SAMPLE, EDIT_ITEM, samplePlaylists } from './samples.js';

/** Options of {@link runTour}. */
export interface TourOptions {
  playlists: Client<Playlist>;
  configMaps: Client<ConfigMap>;
  catalogue: PlaylistCatalogue;
  namespace: string;
  /** Bound of the whole tour. */
  timeoutMs: number;
  print: (line: string) => void;
  signal: AbortSignal;
}

/** A step of the tour did not converge in time; the message says what was missing. */
export class TourTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TourTimeoutError';
  }
}

/** True when the Ready condition is True for the object's current generation. */
export function isReady(playlist: Playlist): boolean {
  const ready = playlist.status?.conditions?.find((c) => c.type === 'Ready');
  const generation = playlist.metadata.generation ?? 0;
  return ready?.status === 'True' && ready.observedGeneration === generation && playlist.status?.observedGeneration === generation;
}

/** Why a playlist is not Ready, for the failure message. */
function notReadyReason(playlist: Playlist | undefined): string {
  if (!playlist) return 'not found';
  const ready = playlist.status?.conditions?.find((c) => c.type === 'Ready');
  if (!ready) return `no Ready condition yet (generation ${playlist.metadata.generation ?? 0}, finalizers ${JSON.stringify(playlist.metadata.finalizers ?? [])})`;
  return `Ready=${ready.status} (${ready.reason}: ${ready.message}) for generation ${ready.observedGeneration ?? '?'} of ${playlist.metadata.generation ?? 0}`;
}

/** Polls `check` until it returns a value (not undefined), or throws TourTimeoutError with `describe()`. */
async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs: number, signal: AbortSignal, describe: () => Promise<string>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal.throwIfAborted();
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new TourTimeoutError(await describe());
    await sleep(100, undefined, { signal });
  }
}

/** Runs a read-modify-write again when it lost a race with another writer (409), like client-go's RetryOnConflict. */
async function retryOnConflict<T>(write: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await write();
    } catch (error) {
      if (!isConflict(error) || i >= attempts) throw error;
    }
  }
}

/** Creates a sample, or resets the spec of one left by an earlier run. */
async function apply(playlists: Client<Playlist>, sample: Playlist): Promise<void> {
  try {
    await playlists.create(sample);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    await retryOnConflict(async () => {
      const existing = await playlists.get({ namespace: sample.metadata.namespace ?? '', name: sample.metadata.name });
      if (JSON.stringify(existing.spec) !== JSON.stringify(sample.spec)) await playlists.update({ ...existing, spec: sample.spec });
    });
  }
}

function ms(since: number): string {
  const elapsed = Date.now() - since;
  return elapsed < 1000 ? `${elapsed} ms` : `${(elapsed / 1000).toFixed(1)} s`;
}

/** Runs the tour; resolves when every step converged. */
export async function runTour(options: TourOptions): Promise<void> {
  const { playlists, configMaps, catalogue, namespace, timeoutMs, print, signal } = options;
  const samples = samplePlaylists(namespace);
  const started = Date.now();
  const deadline = started + timeoutMs;
  const left = (): number => Math.max(0, deadline - Date.now());
  for (const sample of samples) await apply(playlists, sample);
  print(`applied ${samples.length} sample playlists in ${namespace}: ${samples.map((s) => s.metadata.name).join(', ')}`);

  // 1. Every sample becomes Ready; print each one as it does.
  const pending = new Set(samples.map((s) => s.metadata.name));
  await waitFor(
    async () => {
      const list = await playlists.list(namespace, { labelSelector: 'app.kubernetes.io/part-of=kubeloop-demo' });
      for (const p of list.items) {
        if (pending.has(p.metadata.name) && isReady(p)) {
          pending.delete(p.metadata.name);
          print(`  ✓ ${namespace}/${p.metadata.name.padEnd(16)} Ready   ConfigMap ${p.status?.configMap ?? '?'} (${p.spec?.items.length ?? 0} items)   ${ms(started)}`);
        }
      }
      return pending.size === 0 ? true : undefined;
    },
    left(),
    signal,
    async () => {
      const lines: string[] = [];
      for (const name of pending) {
        let playlist: Playlist | undefined;
        try {
          playlist = await playlists.get({ namespace, name });
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
        lines.push(`${namespace}/${name}: ${notReadyReason(playlist)}`);
      }
      return `not Ready: ${lines.join('; ')}`;
    },
  );

  // 2. An edit bumps the generation; the operator re-renders and reports the new generation.
  const editStarted = Date.now();
  const updated = await retryOnConflict(async () => {
    const edited = await playlists.get({ namespace, name: EDITED_SAMPLE });
    const items = [...(edited.spec?.items ?? []).filter((i) => i.value !== EDIT_ITEM.value), { ...EDIT_ITEM }];
    return playlists.update({ ...edited, spec: { ...edited.spec!, items } });
  });
  print(`edited ${namespace}/${EDITED_SAMPLE}: added item ${EDIT_ITEM.value} (generation ${updated.metadata.generation ?? '?'})`);
  await waitFor(
    async () => {
      const p = await playlists.get({ namespace, name: EDITED_SAMPLE });
      if (!isReady(p)) return undefined;
      const cm = await configMaps.get({ namespace, name: configMapNameOf(EDITED_SAMPLE) });
      return cm.data?.['playlist.json']?.includes(EDIT_ITEM.value) ? p : undefined;
    },
    left(),
    signal,
    async () => `${namespace}/${EDITED_SAMPLE} did not converge after the edit: ${notReadyReason(await playlists.get({ namespace, name: EDITED_SAMPLE }))}`,
  ).then((p) => print(`  ✓ ${namespace}/${EDITED_SAMPLE.padEnd(16)} Ready   generation ${p.metadata.generation ?? '?'}, ConfigMap re-rendered   ${ms(editStarted)}`));

  // 3. A delete waits on our finalizer, which withdraws the catalogue entry; then the object goes.
  // The operator adds its finalizer right after the first successful reconcile; delete once it is there.
  const finalizer = await waitFor(
    async () => (await playlists.get({ namespace, name: DELETED_SAMPLE })).metadata.finalizers?.[0],
    left(),
    signal,
    async () => `${namespace}/${DELETED_SAMPLE} never got a finalizer`,
  );
  const deleteStarted = Date.now();
  await playlists.delete({ namespace, name: DELETED_SAMPLE });
  print(`deleted ${namespace}/${DELETED_SAMPLE}: finalizer ${finalizer} keeps it until its catalogue entry is withdrawn`);
  const entry = `${namespace}.${DELETED_SAMPLE}`;
  await waitFor(
    async () => {
      try {
        await playlists.get({ namespace, name: DELETED_SAMPLE });
        return undefined;
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      return (await catalogue.list()).includes(entry) ? undefined : true;
    },
    left(),
    signal,
    async () => `${namespace}/${DELETED_SAMPLE} was not cleaned up: catalogue has ${JSON.stringify(await catalogue.list())}`,
  );
  print(`  ✓ ${namespace}/${DELETED_SAMPLE.padEnd(16)} gone    catalogue entry withdrawn, finalizer removed   ${ms(deleteStarted)}`);
  print(`tour done in ${ms(started)}: ${samples.length - 1} playlists Ready, 1 cleaned up`);
}
