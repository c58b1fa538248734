/** kubeloop with `stripManagedFields` as the informer's transform (kube-rs' `modify` hook). */
import type { ConsumerContext, PreparedConsumer } from './consumer.js';
import { prepareKubeloop } from './kubeloop-informer.js';

export function prepare(ctx: ConsumerContext): PreparedConsumer {
  return prepareKubeloop(ctx, true);
}
