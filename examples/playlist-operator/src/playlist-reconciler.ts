/**
 * The Playlist reconciler: the user code of the demo. It is wrapped by `OpinionatedReconciler`,
 * which adds our finalizer on create and, when a Playlist is deleted, calls us with `Deleted`
 * and removes the finalizer only after we succeeded.
 *
 * Flow for a live Playlist: validate the spec -> render the ConfigMap it owns (create, or update
 * when it drifted) -> publish it to the external catalogue -> report `Ready` in the status.
 * Every step is idempotent, so a retry, a resync or the echo of our own status write is harmless.
 * The requests do not take the handler's abort signal: a reconcile is a few short requests, and on
 * shutdown finishing it beats leaving it half done (each request still has the client's timeout).
 */
import { formatTime, isAlreadyExists, isNotFound } from '@kubeloop/resource';
import type { Client, ConfigMap, Identifier } from '@kubeloop/resource';
import { ReconcileAction } from '@kubeloop/operator';
import type { HandlerContext, Reconciler, ReconcileRequest, ReconcileResult } from '@kubeloop/operator';
import type { PlaylistCatalogue } from './catalogue.js';
import { PlaylistKind } from './playlist.js';
import type { Condition, Playlist, PlaylistSpec, PlaylistStatus } from './playlist.js';

/** The field manager of our writes (shown in `managedFields`). */
export const FIELD_MANAGER = 'playlist-operator';

/** How one reconcile ended. */
export type ReconcileOutcome =
  | { type: 'ready'; changed: boolean; configMap: string }
  | { type: 'invalid'; message: string; changed: boolean }
  | { type: 'deleted' }
  | { type: 'error'; error: unknown };

/** Callbacks for progress output and tests; none is required. */
export interface PlaylistReconcilerHooks {
  /** A reconcile starts. */
  onStart?: ((id: Identifier, action: ReconcileAction) => void) | undefined;
  /** A reconcile ended (also when it threw: `error`). */
  onEnd?: ((playlist: Playlist, action: ReconcileAction, outcome: ReconcileOutcome) => void) | undefined;
}

/** Options of {@link PlaylistReconciler}. */
export interface PlaylistReconcilerOptions {
  playlists: Pick<Client<Playlist>, 'patch'>;
  configMaps: Pick<Client<ConfigMap>, 'get' | 'create' | 'update' | 'delete'>;
  catalogue: PlaylistCatalogue;
  hooks?: PlaylistReconcilerHooks | undefined;
  /** Extra time every reconcile takes, to make in-flight work visible (tests, demos). Default: 0. */
  workDelayMs?: number | undefined;
}

/** The name of the ConfigMap rendered for a playlist. */
export function configMapNameOf(playlistName: string): string {
  return `playlist-${playlistName}`.slice(0, 253);
}

/** Reconciles Playlists into ConfigMaps, catalogue entries and status. */
export class PlaylistReconciler implements Reconciler<Playlist> {
  private readonly options: PlaylistReconcilerOptions;

  constructor(options: PlaylistReconcilerOptions) {
    this.options = options;
  }

  async reconcile(_ctx: HandlerContext, request: ReconcileRequest<Playlist>): Promise<ReconcileResult> {
    const playlist = request.object;
    const id = { namespace: playlist.metadata.namespace ?? '', name: playlist.metadata.name };
    this.options.hooks?.onStart?.(id, request.action);
    let outcome: ReconcileOutcome;
    try {
      if (this.options.workDelayMs) await delay(this.options.workDelayMs);
      outcome = request.action === ReconcileAction.Deleted ? await this.cleanUp(playlist) : await this.apply(playlist);
    } catch (error) {
      this.options.hooks?.onEnd?.(playlist, request.action, { type: 'error', error });
      throw error;
    }
    this.options.hooks?.onEnd?.(playlist, request.action, outcome);
    return {};
  }

  /** The finalizer's job: undo what Kubernetes cannot (the catalogue entry), then the ConfigMap. */
  private async cleanUp(playlist: Playlist): Promise<ReconcileOutcome> {
    await this.options.catalogue.withdraw({ namespace: playlist.metadata.namespace ?? '', name: playlist.metadata.name });
    // The garbage collector (a cluster's, or the embedded API server's) deletes the owned ConfigMap
    // too, shortly after the Playlist is gone; deleting it here makes the cleanup part of the finalizer.
    try {
      await this.options.configMaps.delete({ namespace: playlist.metadata.namespace ?? '', name: configMapNameOf(playlist.metadata.name) });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return { type: 'deleted' };
  }

  private async apply(playlist: Playlist): Promise<ReconcileOutcome> {
    const problem = specProblem(playlist.spec);
    if (problem !== undefined) {
      // Retrying cannot fix a bad spec: say so in the status and wait for the next edit.
      const changed = await this.writeStatus(playlist, { status: 'False', reason: 'InvalidSpec', message: problem }, undefined);
      return { type: 'invalid', message: problem, changed };
    }
    const spec = playlist.spec!;
    const desired = renderConfigMap(playlist, spec);
    const changed = await this.ensureConfigMap(desired);
    await this.options.catalogue.publish(playlist);
    const name = desired.metadata.name;
    await this.writeStatus(playlist, { status: 'True', reason: 'Rendered', message: `ConfigMap ${name} has ${spec.items.length} item(s)` }, name);
    return { type: 'ready', changed, configMap: name };
  }

  /** Creates the ConfigMap, or updates it when its data or ownership drifted. True when something was written. */
  private async ensureConfigMap(desired: ConfigMap): Promise<boolean> {
    const { configMaps } = this.options;
    const id = { namespace: desired.metadata.namespace ?? '', name: desired.metadata.name };
    let existing: ConfigMap;
    try {
      existing = await configMaps.get(id);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      try {
        await configMaps.create(desired, { fieldManager: FIELD_MANAGER });
        return true;
      } catch (createError) {
        // Created by an earlier attempt whose answer we lost: the next attempt compares it.
        if (isAlreadyExists(createError)) throw new Error(`ConfigMap ${id.name} appeared concurrently; retrying`, { cause: createError });
        throw createError;
      }
    }
    if (sameContent(existing, desired)) return false;
    await configMaps.update(
      {
        ...existing,
        metadata: { ...existing.metadata, labels: { ...existing.metadata.labels, ...desired.metadata.labels }, ownerReferences: desired.metadata.ownerReferences },
        data: desired.data,
      },
      { fieldManager: FIELD_MANAGER },
    );
    return true;
  }

  /** Writes the Ready condition unless the status already says exactly that for this generation; true if written. */
  private async writeStatus(
    playlist: Playlist,
    ready: Pick<Condition, 'status' | 'reason' | 'message'>,
    configMap: string | undefined,
  ): Promise<boolean> {
    const generation = playlist.metadata.generation ?? 0;
    const current = playlist.status?.conditions?.find((c) => c.type === 'Ready');
    if (
      current?.status === ready.status &&
      current.reason === ready.reason &&
      current.message === ready.message &&
      current.observedGeneration === generation &&
      playlist.status?.observedGeneration === generation &&
      playlist.status.configMap === configMap
    ) {
      return false;
    }
    const condition: Condition = {
      type: 'Ready',
      ...ready,
      observedGeneration: generation,
      // The transition time moves only when the status flips, as Kubernetes conditions require.
      lastTransitionTime: current?.status === ready.status ? current.lastTransitionTime : formatTime(new Date()),
    };
    const status: PlaylistStatus = {
      observedGeneration: generation,
      conditions: [...(playlist.status?.conditions ?? []).filter((c) => c.type !== 'Ready'), condition],
    };
    // A merge patch of the status subresource needs no resourceVersion: our status write never
    // conflicts with a user's spec edit, and the spec edit brings a new event anyway.
    await this.options.playlists.patch(
      { namespace: playlist.metadata.namespace ?? '', name: playlist.metadata.name },
      { merge: { status: { ...status, configMap: configMap ?? null } } },
      { subresource: 'status', fieldManager: FIELD_MANAGER },
    );
    return true;
  }
}

/** What is wrong with a spec the schema let through, or undefined. */
export function specProblem(spec: PlaylistSpec | undefined): string | undefined {
  if (!spec) return 'spec is missing';
  if (!spec.title?.trim()) return 'spec.title is empty';
  const intervalMs = parseDurationMs(spec.interval);
  if (intervalMs === undefined) return `spec.interval ${JSON.stringify(spec.interval)} is not a duration like 30s or 5m`;
  if (intervalMs < 1000) return `spec.interval ${spec.interval} is shorter than 1s`;
  if (!Array.isArray(spec.items) || spec.items.length === 0) return 'spec.items is empty: a playlist needs at least one item';
  const seen = new Set<string>();
  for (const [i, item] of spec.items.entries()) {
    const key = `${item.type}:${item.value}`;
    if (seen.has(key)) return `spec.items[${i}] repeats ${key}`;
    seen.add(key);
  }
  return undefined;
}

/** Parses a Go-style duration (`1h30m`, `45s`, `500ms`) into milliseconds. */
export function parseDurationMs(text: string | undefined): number | undefined {
  if (typeof text !== 'string' || !/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) return undefined;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  for (const match of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(match[1]) * (unit[match[2]!] ?? 0);
  return total;
}

/** The ConfigMap a playlist should have. */
export function renderConfigMap(playlist: Playlist, spec: PlaylistSpec): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: configMapNameOf(playlist.metadata.name),
      namespace: playlist.metadata.namespace ?? 'default',
      labels: { 'app.kubernetes.io/managed-by': FIELD_MANAGER, 'playlist.kubeloop.dev/name': playlist.metadata.name },
      ownerReferences: [
        {
          apiVersion: PlaylistKind.apiVersion,
          kind: PlaylistKind.kind,
          name: playlist.metadata.name,
          uid: playlist.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    data: {
      title: spec.title,
      interval: spec.interval,
      'playlist.json': `${JSON.stringify({ title: spec.title, interval: spec.interval, items: spec.items }, null, 2)}\n`,
    },
  };
}

function sameContent(existing: ConfigMap, desired: ConfigMap): boolean {
  const owner = existing.metadata.ownerReferences?.find((o) => o.controller);
  const wanted = desired.metadata.ownerReferences?.[0];
  const labels = desired.metadata.labels ?? {};
  return (
    owner?.uid === wanted?.uid &&
    Object.entries(labels).every(([k, v]) => existing.metadata.labels?.[k] === v) &&
    JSON.stringify(existing.data ?? {}) === JSON.stringify(desired.data ?? {})
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
