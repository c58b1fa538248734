/** kube-controller-manager's `replicationcontroller` controller (upstream runs the ReplicaSet code on it): see `replicated-pods.ts`. */
import { LabelSelector } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import type { SimulatedController } from '../simulated-controller.js';
import type { SimulationContext } from '../simulation-context.js';
import { replicatedPodsController } from './replicated-pods.js';

/** The selector of an RC's `spec.selector` label map (defaulted from the template's labels); undefined when empty. */
function labelMapSelectorOf(object: KubeObject): LabelSelector | undefined {
  const selector = (object.spec as { selector?: Record<string, string> } | undefined)?.selector;
  if (!selector || Object.keys(selector).length === 0) return undefined;
  try {
    return LabelSelector.fromLabels(selector);
  } catch {
    return undefined;
  }
}

/** Keeps each ReplicationController's Pods; keys are `namespace/name`. */
export function replicationControllerController(ctx: SimulationContext): SimulatedController {
  return replicatedPodsController(ctx, { name: 'replicationcontroller', apiVersion: 'v1', kind: 'ReplicationController', selectorOf: labelMapSelectorOf });
}
