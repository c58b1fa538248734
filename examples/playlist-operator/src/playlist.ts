/**
 * The Playlist custom resource: its TypeScript types, its kind and the CustomResourceDefinition
 * that installs it. A Playlist is a named, ordered list of dashboards to cycle through (as in
 * Grafana's playlist app); the operator turns each one into a ConfigMap that a player would read.
 */
import { defineKind } from '@kubeloop/resource';
import type { CustomResourceDefinition, KubeObject } from '@kubeloop/resource';

/** One entry of a playlist: a dashboard by uid, or every dashboard with a tag. */
export interface PlaylistItem {
  type: 'dashboard_by_uid' | 'dashboard_by_tag';
  value: string;
}

/** What the user asks for. */
export interface PlaylistSpec {
  title: string;
  /** How long each item is shown, as a Go-style duration (`30s`, `5m`, `1h30m`). */
  interval: string;
  items: PlaylistItem[];
}

/** A Kubernetes condition (metav1.Condition). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** What the operator reports. */
export interface PlaylistStatus {
  conditions?: Condition[];
  /** The generation the conditions describe. */
  observedGeneration?: number;
  /** Name of the ConfigMap rendered for this playlist. */
  configMap?: string;
}

/** A Playlist object. */
export type Playlist = KubeObject<PlaylistSpec, PlaylistStatus>;

/** `playlist.kubeloop.dev/v1` Playlist, namespaced, short name `pl`. */
export const PlaylistKind = defineKind<PlaylistSpec, PlaylistStatus>({
  group: 'playlist.kubeloop.dev',
  version: 'v1',
  kind: 'Playlist',
  shortNames: ['pl'],
});

/** The CRD that installs {@link PlaylistKind}: a structural schema, the status subresource and kubectl columns. */
export const playlistCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${PlaylistKind.plural}.${PlaylistKind.group}` },
  spec: {
    group: PlaylistKind.group,
    scope: 'Namespaced',
    names: { plural: PlaylistKind.plural, singular: PlaylistKind.singular, kind: PlaylistKind.kind, listKind: 'PlaylistList', shortNames: ['pl'] },
    versions: [
      {
        name: PlaylistKind.version,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Title', type: 'string', jsonPath: '.spec.title' },
          { name: 'Items', type: 'integer', jsonPath: '.spec.items[*]', description: 'number of items', priority: 1 },
          { name: 'Interval', type: 'string', jsonPath: '.spec.interval' },
          { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['title', 'interval', 'items'],
                properties: {
                  title: { type: 'string', minLength: 1, maxLength: 200 },
                  interval: { type: 'string', pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$' },
                  items: {
                    type: 'array',
                    maxItems: 100,
                    items: {
                      type: 'object',
                      required: ['type', 'value'],
                      properties: {
                        type: { type: 'string', enum: ['dashboard_by_uid', 'dashboard_by_tag'] },
                        value: { type: 'string', minLength: 1 },
                      },
                    },
                  },
                },
              },
              status: {
                type: 'object',
                properties: {
                  observedGeneration: { type: 'integer', format: 'int64' },
                  configMap: { type: 'string' },
                  conditions: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['type'],
                    items: {
                      type: 'object',
                      required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
                      properties: {
                        type: { type: 'string' },
                        status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                        observedGeneration: { type: 'integer', format: 'int64' },
                        lastTransitionTime: { type: 'string', format: 'date-time' },
                        reason: { type: 'string' },
                        message: { type: 'string' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};
