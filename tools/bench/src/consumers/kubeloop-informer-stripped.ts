/** kubeloop with the managedFields-stripping transform. (Filled in when the informer lands.) */
import type { ConsumerContext, RunningConsumer } from './consumer.js';

export function start(_ctx: ConsumerContext): RunningConsumer {
  throw new Error('kubeloop informer not available yet');
}
