/**
 * @dot-i/k8s-operator 1.3.9 (on its own @kubernetes/client-node 0.20): an `Operator` subclass whose
 * `init` watches ConfigMaps with a no-op async handler. It has no list and no cache, and it watches
 * from resourceVersion '' (so it first receives one ADDED event per object); it reads the kubeconfig
 * from `KUBECONFIG`, and calls `process.exit(1)` on any watch error.
 */
import { createRequire } from 'node:module';
import type { ConsumerContext, ConsumerModule, PreparedConsumer } from './consumer.js';

interface DotIEvent {
  object: { metadata?: { resourceVersion?: string } };
}
interface DotIOperator {
  start(): Promise<void>;
  stop(): void;
}
type DotIOperatorClass = new () => DotIOperator;

export const watchesFromScratch: ConsumerModule['watchesFromScratch'] = true;

export function prepare(ctx: ConsumerContext): PreparedConsumer {
  process.env.KUBECONFIG = ctx.kubeconfigPath;
  // A CommonJS module whose class is `exports.default`.
  const mod = createRequire(import.meta.url)('@dot-i/k8s-operator') as { default: abstract new () => DotIOperator };
  const Base = mod.default as unknown as DotIOperatorClass;
  type Watch = (g: string, v: string, p: string, on: (e: DotIEvent) => Promise<void>, ns?: string) => Promise<void>;
  class BenchOperator extends Base {
    protected async init(): Promise<void> {
      const watchResource = (this as unknown as { watchResource: Watch }).watchResource.bind(this);
      await watchResource('', 'v1', 'configmaps', async (e) => ctx.observe(e.object.metadata), ctx.namespace);
    }
  }
  const operator = new BenchOperator();
  return {
    start: () => ({ synced: operator.start(), cachedObjects: () => -1, stop: async () => operator.stop() }),
  };
}
