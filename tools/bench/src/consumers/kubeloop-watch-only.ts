/** Stage consumer: kubeloop's `Client.watch` alone (see kubeloop-stages.ts). */
import type { ConsumerContext, PreparedConsumer } from './consumer.js';
import { prepareWatchOnly } from './kubeloop-stages.js';

export function prepare(ctx: ConsumerContext): PreparedConsumer {
  return prepareWatchOnly(ctx);
}
