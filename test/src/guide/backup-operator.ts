// The operator under test: every Backup gets a ConfigMap manifest it owns, and a Ready condition.
import { Client, ConfigMapKind, defineKind, identifierOf, setCondition, setControllerReference } from '@kubeloop/resource';
import type { Condition, CustomResourceDefinition, Transport } from '@kubeloop/resource';
import { InformerController, KubernetesBasedInformer, Operator, ReconcileAction, SimpleReconciler, createOrUpdate } from '@kubeloop/operator';
import type { Logger, RetryPolicy } from '@kubeloop/operator';

export interface BackupSpec {
  source: string;
}
export interface BackupStatus {
  conditions?: Condition[];
}
export const BackupKind = defineKind<BackupSpec, BackupStatus>({ group: 'backup.example.com', version: 'v1', kind: 'Backup' });

// In a real project this constant is generated from the CRD's YAML by kubeloop-codegen.
export const BackupCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'backups.backup.example.com' },
  spec: {
    group: 'backup.example.com',
    scope: 'Namespaced',
    names: { plural: 'backups', singular: 'backup', kind: 'Backup' },
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
              spec: { type: 'object', required: ['source'], properties: { source: { type: 'string' } } },
              status: { type: 'object', properties: { conditions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
            },
          },
        },
      },
    ],
  },
};

export interface BackupOperatorOptions {
  /** In main: `HttpTransport.fromKubeConfig(loadKubeConfig())`; in tests: the test environment's. */
  transport: Transport;
  /** Default: the controller's (5 s doubling); tests pass a faster one. */
  retryPolicy?: RetryPolicy;
  logger?: Logger;
}

export function createBackupOperator(options: BackupOperatorOptions): Operator {
  const backups = new Client(BackupKind, options.transport);
  const configMaps = new Client(ConfigMapKind, options.transport);
  const controller = new InformerController({ retryPolicy: options.retryPolicy, logger: options.logger });
  controller.addInformer(new KubernetesBasedInformer(BackupKind, backups, ''));
  controller.addReconciler(
    new SimpleReconciler<ReturnType<typeof BackupKind.zeroValue>>({
      reconcileFunc: async (ctx, { action, object: backup }) => {
        if (action === ReconcileAction.Deleted) return {}; // the manifest is garbage-collected with its owner
        const manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${backup.metadata.name}-manifest`, namespace: backup.metadata.namespace } };
        const { operation } = await createOrUpdate(configMaps, manifest, (cm) => {
          cm.data = { source: backup.spec?.source ?? '' };
          setControllerReference(backup, cm);
        });
        const status = structuredClone(backup.status ?? {});
        const ready = { type: 'Ready', status: 'True', reason: 'ManifestWritten', message: `manifest ${operation}`, observedGeneration: backup.metadata.generation } as const;
        if (setCondition(status, ready)) await backups.patchStatus(identifierOf(backup), { conditions: status.conditions });
        ctx.logger.info('reconciled', { manifest: operation });
        return {};
      },
    }),
    BackupKind,
  );
  const operator = new Operator();
  operator.addController(controller);
  return operator;
}
