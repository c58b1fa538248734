/** kube-controller-manager's `replicaset` controller: see `replicated-pods.ts`. */
import { LabelSelector } from '@kubeloop/resource';
import type { KubeObject, LabelSelectorObject } from '@kubeloop/resource';
import type { SimulatedController } from '../simulated-controller.js';
import type { SimulationContext } from '../simulation-context.js';
import { replicatedPodsController } from './replicated-pods.js';

/** The selector of a `spec.selector` LabelSelector; undefined when it is missing, empty or invalid (it selects nothing). */
export function labelSelectorOf(object: KubeObject): LabelSelector | undefined {
  const selector = (object.spec as { selector?: LabelSelectorObject } | undefined)?.selector;
  if (!selector) return undefined;
  try {
    const parsed = LabelSelector.fromLabelSelectorObject(selector);
    return parsed.isEmpty() ? undefined : parsed;
  } catch {
    return undefined;
  }
}

/** Keeps each ReplicaSet's Pods; keys are `namespace/name`. */
export function replicaSetController(ctx: SimulationContext): SimulatedController {
  return replicatedPodsController(ctx, { name: 'replicaset', apiVersion: 'apps/v1', kind: 'ReplicaSet', selectorOf: labelSelectorOf });
}
