/** The Website custom resource: what a user asks for, and what the operator reports. */
import { defineKind } from '@kubeloop/resource';
import type { Condition, CustomResourceDefinition, KubeObject } from '@kubeloop/resource';

export interface WebsiteSpec {
  /** The container image that serves the site. */
  image: string;
  /** Pods to run. */
  replicas: number;
  /** The public host name the DNS record points at the site. */
  hostname: string;
}

export interface WebsiteStatus {
  conditions?: Condition[];
}

export type Website = KubeObject<WebsiteSpec, WebsiteStatus>;

export const WebsiteKind = defineKind<WebsiteSpec, WebsiteStatus>({ group: 'web.kubeloop.dev', version: 'v1', kind: 'Website' });

/** The CRD, installed by `main` (and by the tests) with `ensureCrd`. */
export const WebsiteCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'websites.web.kubeloop.dev' },
  spec: {
    group: 'web.kubeloop.dev',
    scope: 'Namespaced',
    names: { plural: 'websites', singular: 'website', kind: 'Website', shortNames: ['site'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['image', 'replicas', 'hostname'],
                properties: {
                  image: { type: 'string', minLength: 1 },
                  replicas: { type: 'integer', minimum: 0, maximum: 50 },
                  hostname: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' },
                },
              },
              status: { type: 'object', properties: { conditions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
            },
          },
        },
      },
    ],
  },
};
