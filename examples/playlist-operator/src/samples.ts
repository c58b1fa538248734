/** The sample Playlists the demo applies, and the edits it makes to show updates and deletes. */
import { PlaylistKind } from './playlist.js';
import type { Playlist, PlaylistSpec } from './playlist.js';

function playlist(namespace: string, name: string, spec: PlaylistSpec): Playlist {
  return { apiVersion: PlaylistKind.apiVersion, kind: PlaylistKind.kind, metadata: { name, namespace, labels: { 'app.kubernetes.io/part-of': 'kubeloop-demo' } }, spec };
}

/** Four playlists, as a team would keep them. */
export function samplePlaylists(namespace: string): Playlist[] {
  return [
    playlist(namespace, 'morning-standup', {
      title: 'Morning stand-up',
      interval: '30s',
      items: [
        { type: 'dashboard_by_uid', value: 'service-overview' },
        { type: 'dashboard_by_uid', value: 'error-budget' },
        { type: 'dashboard_by_tag', value: 'on-call' },
      ],
    }),
    playlist(namespace, 'incident-review', {
      title: 'Incident review',
      interval: '2m',
      items: [
        { type: 'dashboard_by_tag', value: 'incident' },
        { type: 'dashboard_by_uid', value: 'latency-slo' },
      ],
    }),
    playlist(namespace, 'release-day', {
      title: 'Release day',
      interval: '1m',
      items: [
        { type: 'dashboard_by_uid', value: 'deploy-status' },
        { type: 'dashboard_by_uid', value: 'canary-analysis' },
      ],
    }),
    playlist(namespace, 'wallboard', {
      title: 'Office wallboard',
      interval: '5m',
      items: [{ type: 'dashboard_by_tag', value: 'wallboard' }],
    }),
  ];
}

/** The sample the tour edits (a new item: generation 2). */
export const EDITED_SAMPLE = 'release-day';
/** The item the edit appends. */
export const EDIT_ITEM = { type: 'dashboard_by_uid', value: 'rollback-plan' } as const;
/** The sample the tour deletes, to show the finalizer undoing the external side effect. */
export const DELETED_SAMPLE = 'wallboard';
