/** Every built-in kind kubeloop knows, in one list (the API server serves these without a CRD). */
import type { Kind } from '../kind.js';
import { ConfigMapKind } from './config-map.js';
import { CustomResourceDefinitionKind } from './custom-resource-definition.js';
import { EventKind } from './event.js';
import { LeaseKind } from './lease.js';
import { NamespaceKind } from './namespace.js';
import { SecretKind } from './secret.js';
import { builtinWorkloadKinds } from './builtin-workloads.generated.js';

/**
 * Namespace, ConfigMap, Secret, Event, Lease and CustomResourceDefinition (typed by hand), then every
 * other kind the embedded API server serves (Pod, Service, Deployment, Job, Role..., generated from the
 * server's data: see `builtin-workloads.generated.ts`).
 */
export const builtinKinds: readonly Kind[] = Object.freeze([
  NamespaceKind,
  ConfigMapKind,
  SecretKind,
  EventKind,
  LeaseKind,
  CustomResourceDefinitionKind,
  ...(builtinWorkloadKinds as readonly Kind[]),
]);
