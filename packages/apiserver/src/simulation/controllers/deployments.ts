/**
 * kube-controller-manager's `deployment` controller: a Deployment's ReplicaSets, rollouts, scaling,
 * history and status (the steps are in `deployment-sync.ts`). It hears Deployments, ReplicaSets
 * (their controller's key, or for an orphan the Deployments whose selector matches it) and Pod
 * deletions (a Recreate rollout waits for the old Pods to be gone).
 */
import { controllerOf } from '@kubeloop/resource';
import { storeKeyOf } from '../../types/resource-type.js';
import type { SimulatedController } from '../simulated-controller.js';
import { builtinType, objectsIn } from '../simulation-context.js';
import type { SimulationContext } from '../simulation-context.js';
import { controllerKeyOf } from './controller-refs.js';
import { DeploymentSync } from './deployment-sync.js';
import { labelSelectorOf } from './replica-sets.js';

/** Runs Deployments; keys are `namespace/name`. */
export function deploymentController(ctx: SimulationContext): SimulatedController {
  const types = { deployment: builtinType(ctx, 'apps/v1', 'Deployment'), replicaSet: builtinType(ctx, 'apps/v1', 'ReplicaSet'), pod: builtinType(ctx, 'v1', 'Pod') };
  const deployments = storeKeyOf(types.deployment);
  const replicaSets = storeKeyOf(types.replicaSet);
  const pods = storeKeyOf(types.pod);
  return {
    name: 'deployment',
    watches: [deployments, replicaSets, pods],
    *keysFor(storeKey, event) {
      const object = event.current.object;
      if (storeKey === deployments) {
        yield event.current.key;
      } else if (storeKey === replicaSets) {
        const owner = controllerKeyOf(object, 'apps/v1', 'Deployment');
        if (owner) yield owner;
        const previous = event.previous && controllerKeyOf(event.previous.object, 'apps/v1', 'Deployment');
        if (previous && previous !== owner) yield previous;
        if (!controllerOf(object) && event.type !== 'DELETED') {
          for (const stored of objectsIn(ctx, types.deployment, object.metadata.namespace)) {
            if (labelSelectorOf(stored.object)?.matches(object.metadata.labels ?? {})) yield stored.key;
          }
        }
      } else if (event.type === 'DELETED') {
        const rsKey = controllerKeyOf(object, 'apps/v1', 'ReplicaSet');
        const rs = rsKey === undefined ? undefined : ctx.store.get(replicaSets, rsKey);
        const owner = rs && controllerKeyOf(rs.object, 'apps/v1', 'Deployment');
        if (owner) yield owner;
      }
    },
    *initialKeys() {
      for (const stored of ctx.store.values(deployments)) yield stored.key;
    },
    async sync(key) {
      const stored = ctx.store.get(deployments, key);
      return stored ? new DeploymentSync(ctx, types, stored).run() : undefined;
    },
  };
}
