/** Stage consumer: kubeloop's informer alone, no controller (see kubeloop-stages.ts). */
import type { ConsumerContext, PreparedConsumer } from './consumer.js';
import { prepareInformerOnly } from './kubeloop-stages.js';

export function prepare(ctx: ConsumerContext): PreparedConsumer {
  return prepareInformerOnly(ctx);
}
